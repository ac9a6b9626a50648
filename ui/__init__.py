"""Web pages (student, teacher, admin) mounted into the daemon's app.

Not built yet: until then ``eduqa serve`` offers the JSON API only.
"""
