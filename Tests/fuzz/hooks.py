"""Schemathesis hooks: how to make values of the formats our OpenAPI document names that JSON Schema
cannot describe by itself (an ISBN's check digit)."""
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
