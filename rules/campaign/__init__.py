"""A campaign's pure rules, a peer of the rulesets: its events and the state they fold into,
the rosters and the post-battle sequence, bundled books and their story. It builds on the
rules core and knows no ruleset by name (each ruleset's ``campaign.yaml`` and muster are data
and hooks it reads)."""
