"""trainspec's example trainer."""
