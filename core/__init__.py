"""App infrastructure every package may import: settings, the database engine and naming
convention, the migrations runner, request logging. It imports no other humantrace package."""
