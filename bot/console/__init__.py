"""The console front end: the console table and its plain-text renderer."""
