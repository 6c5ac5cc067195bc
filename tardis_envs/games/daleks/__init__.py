"""Time of the Daleks (time_of_the_daleks_v2): rules, content and drawing."""
