"""Schemathesis hooks: how to make values of the formats our OpenAPI document names that JSON Schema
cannot describe by itself (an ISBN's check digit), and the ids of run.py's rows that requests name in
their bodies and queries."""
import json, os, urllib.request

import schemathesis
from hypothesis import strategies as st

# Real ISBNs with correct check digits, as ISBN-13, ISBN-10 and hyphenated.
ISBNS = ["9780306406157", "0306406152", "978-3-522-20260-2", "9780140143508", "0-8044-2957-X", "9780439708180",
         "9780747532699", "9780545010221", "9780261103573", "9780553293357", "9780451524935", "979-10-90636-07-1"]

schemathesis.openapi.format("isbn", st.sampled_from(ISBNS))

# A moment that has happened (a read's start or finish, a progress event): the last five years.
def _past_moments():
    import datetime
    now = datetime.datetime.now(datetime.timezone.utc)
    return st.datetimes(min_value=(now - datetime.timedelta(days=5 * 365)).replace(tzinfo=None),
                        max_value=(now - datetime.timedelta(minutes=5)).replace(tzinfo=None)).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ"))

schemathesis.openapi.format("past-date-time", _past_moments())

# The other date-time a request carries is a loan's due date, which the document says lies in the
# future and at most a year ahead.
def _due_dates():
    import datetime
    now = datetime.datetime.now(datetime.timezone.utc)
    return st.datetimes(min_value=(now + datetime.timedelta(days=1)).replace(tzinfo=None),
                        max_value=(now + datetime.timedelta(days=360)).replace(tzinfo=None)).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ"))

schemathesis.openapi.format("date-time", _due_dates())

# Ids a request names in its body or query, which no path parameter can supply (run.py sets them, from
# the rows it made): a copy's barcode to shelve, a category to merge into, the title (and page photo) a
# quote is from. Half the requests carry the real ones, so the operation is reached past its 404; the
# other half stay as generated. A read's `memberId` (whose read it is) is left out of half of them: the
# explored read is the owner's own.
KNOWN = json.loads(os.environ.get("FUZZ_KNOWN", "{}"))
MERGE = "/categories/{categoryID}/merge"


def _with_known(path, body):
    if path.endswith("/shelves/{shelfID}/copies"):
        return {**body, "code": KNOWN["barcode"]}
    if path.endswith(MERGE):
        return {**body, "into": KNOWN["otherCategoryID"]}
    if path.endswith("/quotes"):
        return {**body, "titleId": KNOWN["titleID"], **({"photoId": KNOWN["photoID"]} if "photoId" in body else {})}
    return None


@schemathesis.hook
def flatmap_body(context, body):
    operation = context.operation
    if operation is not None and isinstance(body, dict) and KNOWN:
        known = _with_known(operation.path, body)
        if known is not None:
            return st.sampled_from([body, known])
    return st.just(body)


@schemathesis.hook
def flatmap_query(context, query):
    operation = context.operation
    if operation is not None and "/reads/{readID}" in operation.path and isinstance(query, dict) and "memberId" in query:
        return st.sampled_from([query, {k: v for k, v in query.items() if k != "memberId"}])
    return st.just(query)


@schemathesis.hook
def before_call(context, case, kwargs):
    """A merge takes its category away, so after the first one every merge of the configured category
    would be a 404: each merge case gets a category of its own, made just before it."""
    if not case.operation.path.endswith(MERGE) or "categoriesURL" not in KNOWN:
        return
    if case.path_parameters.get("categoryID") != KNOWN.get("categoryID"):
        return
    request = urllib.request.Request(KNOWN["categoriesURL"], method="POST",
                                     data=json.dumps({"name": f"Merged {os.urandom(4).hex()}"}).encode(),
                                     headers={"content-type": "application/json", "authorization": f"Bearer {KNOWN['apiToken']}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        case.path_parameters["categoryID"] = json.loads(response.read())["id"]
