"""Reporters: diagnostics and results written as text, JSON, SARIF, GitHub annotations."""
