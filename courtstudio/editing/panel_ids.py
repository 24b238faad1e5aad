"""The app's tool panels by id, in tab order: one tool per panel. Imports nothing, so the CLI's
``gui --panel`` choices and the tool state read it without loading Qt; each panel's title,
shortcut, widget and canvas handlers are registered in annotation_ui/panels.py (which checks
that it lists these ids, in this order)."""

PANEL_IDS = ("court", "ball", "players", "masks")
