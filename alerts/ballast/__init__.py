"""NORMAM-20 ballast water: declarations, applicability, voyage screening and audits."""
