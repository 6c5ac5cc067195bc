"""Time of the Daleks (time_of_the_daleks_v1): rules, content and drawing."""
