"""Reading and checking inputs: file shapes and typed errors, score parsing, run order and ties as
trec_eval has them, the (query, document) index that joins runs, references and qrels."""
