"""The Discord front end: slash commands, embeds, persistent buttons, translations.

It only turns interactions into :class:`bot.service.Request` objects and
:class:`bot.service.Reply` objects into messages; every rule and permission lives in the
service and the rules core. ``bot.app.main`` needs :func:`bot.discord.client.build_bot` and
:func:`bot.discord.client.dry_run_payload`.
"""
