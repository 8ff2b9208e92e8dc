"""Studies: creation, settings (validated, audited once data exists), lifecycle and the study a request acts on."""
