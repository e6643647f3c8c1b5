#!/usr/bin/env python3
"""Checks the soak's documents with an independent validator.

    REIN_SOAK_DUMP=/tmp/soak.jsonl go test ./internal/soak -run TestSoak
    python3 internal/soak/testdata/crosscheck.py /tmp/soak.jsonl ../shared/data/json-schema-test-suite/remotes

Each line of the dump is {name, seed, schema, doc}. The document is
validated with Python's jsonschema (the draft its $schema names, 2020-12
otherwise; formats not asserted, remote references served from the suite's
remotes folder; numbers read as decimals, not floats). Prints each document the validator rejects; exits 1 if any.
"""
import json
import os
import sys
import decimal
from decimal import Decimal

import jsonschema
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource
from referencing.jsonschema import DRAFT202012


def main():
    ctx = decimal.getcontext()
    ctx.prec, ctx.Emax, ctx.Emin = 1000, decimal.MAX_EMAX, decimal.MIN_EMIN
    dump, remotes = sys.argv[1], sys.argv[2]

    def retrieve(uri):
        prefix = "http://localhost:1234/"
        if not uri.startswith(prefix):
            raise NoSuchResource(ref=uri)
        with open(os.path.join(remotes, uri[len(prefix):])) as f:
            return Resource.from_contents(json.load(f), default_specification=DRAFT202012)

    registry = Registry(retrieve=retrieve)
    total = bad = errors = 0
    with open(dump) as f:
        for line in f:
            rec = json.loads(line)
            total += 1
            # Decimals, not floats: 1e117 + 0.1 is not an integer, and 72.46
            # is a multiple of 0.01.
            schema = json.loads(json.dumps(rec["schema"]), parse_float=Decimal)
            try:
                doc = json.loads(rec["doc"], parse_float=Decimal)
            except decimal.DecimalException as e:
                errors += 1
                print(f"UNJUDGED {rec['name']}: number out of range: {rec['doc'][:100]}")
                continue
            except ValueError as e:
                print(f"NOT JSON {rec['name']} seed {rec['seed']}: {e}: {rec['doc'][:200]}")
                bad += 1
                continue
            try:
                cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
                errs = list(cls(schema, registry=registry).iter_errors(doc))
            except Exception as e:  # the validator could not judge
                errors += 1
                print(f"UNJUDGED {rec['name']}: {type(e).__name__}: {str(e)[:200]}")
                continue
            if errs:
                bad += 1
                print(f"INVALID {rec['name']} seed {rec['seed']}: {errs[0].message[:200]}")
                print(f"  schema: {json.dumps(rec['schema'])[:600]}")
                print(f"  doc:    {rec['doc'][:600]}")
    print(f"{total} documents, {bad} invalid, {errors} not judged")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
