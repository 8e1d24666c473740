"""The linea_gotica turn machine, one module per verb (see ``rules.linea_gotica.game``)."""
