"""Op-table rows by op family; tests/op_specs.py assembles them."""
