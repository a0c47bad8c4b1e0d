"""Chooses names meant to drive a terminal and escape a folder: escape sequences, NUL, BEL, '../'."""

from rawserver import serve, tool

serve(
    [
        tool("paint\x1b[31mred", description="Clears\x1b[2J the screen,\x07 rings\x00 and\x9b[31m colours."),
        tool("plain", description="A plain tool."),
    ],
    name="../../../evil\x1b[2J",
)
