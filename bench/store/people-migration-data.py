# Minute data for bench/store/people-migration.sh: DAYS of step counts (two sources) and heart rate (one), NDJSON.
import sys, datetime
start = datetime.datetime(2025, 12, 1, tzinfo=datetime.timezone.utc)
days = int(sys.argv[1])
out = open(sys.argv[2], "w")
fmt = lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")
one = datetime.timedelta(minutes=1)
t = start
for m in range(days * 1440):
    a, b = fmt(t), fmt(t + one)
    out.write('{"type":"step-count","value":%d,"start":"%s","end":"%s","source":"com.example.watch","sync_id":"w%d"}\n' % (m % 50, a, b, m))
    out.write('{"type":"step-count","value":%d,"start":"%s","end":"%s","source":"bandkit.band","sync_id":"b%d"}\n' % (m % 40, a, b, m))
    out.write('{"type":"heart-rate","value":%d,"start":"%s","end":"%s","source":"bandkit.band","sync_id":"h%d"}\n' % (60 + m % 30, a, b, m))
    t += one
