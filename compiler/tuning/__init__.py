"""Hyperparameter tuning: the model and its tables (model.py), decoding and the platform-neutral
rules (rules.py), and the parameter syntax (syntax.py)."""
