"""Time of the Daleks (time_of_the_daleks_v0): rules, content and drawing."""
