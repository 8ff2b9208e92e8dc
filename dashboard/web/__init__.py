"""What every dashboard page shares: rendering, request dependencies (login, lead-only, CSRF), the home redirect."""
