"""The read-only web pages served beside the bot (docs/web.md).

``pages`` renders a page from what the service gives a reader (`bot.service.pages`),
``answers`` builds and remembers the responses, ``app`` serves them with aiohttp under the
links the service signs (`bot.service.links`). Nothing is imported here, and the service
imports nothing of this package.
"""
