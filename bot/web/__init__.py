"""The read-only web pages served beside the bot (docs/web.md).

``links`` signs and checks the personal links, ``pages`` renders a page from what the
service gives a reader (`bot.service.web`), ``app`` serves them with aiohttp. Nothing is
imported here: the service imports ``links`` alone, and ``app`` imports the service.
"""
