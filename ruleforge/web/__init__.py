"""`ruleforge serve`: rule-enforced playtests in a browser, each person at a private seat.

Needs the `web` extra (Starlette and uvicorn): `pip install 'ruleforge[web]'`.
"""
