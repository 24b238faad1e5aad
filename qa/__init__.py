"""Spatial question-answer pairs from CourtStudio scene files (CourtSI's 13 categories), and the
CourtSI-Bench scorer. Reads scene files and court specs only (docs/qa.md)."""
