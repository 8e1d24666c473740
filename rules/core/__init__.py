"""The pure rules core shared by every ruleset: dice, resolutions, odds, tables, errors."""
