"""Pictures of the game for the front ends (Pillow): :mod:`bot.render.map`."""
