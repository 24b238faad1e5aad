"""Dataset builds over many clips (issue 13): a manifest, per-(clip, stage) tasks with
provenance, Ray or serial execution, resumable, and a merged QA training set and benchmark.

Modules: manifest (format and validation), stage_dirs (atomic stage folders, provenance),
stages (prepare, propagate, players, export, qa), players_stage, qa_stage (per-clip QA and
the merge), executors (Ray or serial), build (the driver and its report).
"""
