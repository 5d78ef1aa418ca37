"""`corpora convert`: a legacy loading script's builder run and written as an export like a corpus's."""
