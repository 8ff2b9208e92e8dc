"""People and login: the login-link pages and sign-out (accounts themselves live in `annotators`)."""
