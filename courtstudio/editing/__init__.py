"""The Qt-free editing model: the annotation document, undo commands, events, tool state, and
the crash-safe journal (autosave).

Imports ``courtstudio.pipeline`` and ``courtstudio.io``; the app (annotation_ui) is a thin view
over this layer.
"""
