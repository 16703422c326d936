/* The raw C baseline of bench/import: the same sample rows as `health import` stored, inserted
 * with one prepared statement in one transaction, into the same schema (the store's table, its
 * three indexes — uuid UNIQUE, (type, time) covering, (app, type, sync_id) UNIQUE — and its
 * pragmas: WAL, synchronous NORMAL, foreign keys on, 64 MiB cache).
 *
 *   baseline STORE.sqlite ROWS.tsv
 *
 * ROWS.tsv: anchor, hex(uuid), type_id, start_us, end_us, value, app_id, app_version,
 * device_id, zone, sync_id, sync_version, user_entered, metadata — tab-separated, `<null>` for NULL,
 * as `sqlite3 -separator` prints them from the imported store. The app, device and sample_type
 * rows are copied beforehand (bench/import/run.sh), so the foreign keys hold.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int rc, sqlite3 *db, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "baseline: %s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

static int hexval(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: baseline STORE ROWS.tsv\n"); return 64; }
    sqlite3 *db;
    check(sqlite3_open(argv[1], &db), db, "open");
    check(sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;"
                           "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;", 0, 0, 0), db, "pragmas");
    FILE *rows = fopen(argv[2], "r");
    if (!rows) { perror(argv[2]); return 1; }
    sqlite3_stmt *insert;
    check(sqlite3_prepare_v2(db,
        "INSERT INTO sample (anchor, uuid, type_id, start_us, end_us, value, app_id, app_version, device_id, zone,"
        " sync_id, sync_version, user_entered, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (person_id, app_id, type_id, sync_id) WHERE sync_id IS NOT NULL DO NOTHING", -1, &insert, 0), db, "prepare");
    check(sqlite3_exec(db, "BEGIN IMMEDIATE", 0, 0, 0), db, "begin");
    char line[65536];
    long count = 0;
    while (fgets(line, sizeof line, rows)) {
        line[strcspn(line, "\n")] = 0;
        char *fields[14];
        int n = 0;
        char *cursor = line;
        while (n < 14) {
            fields[n++] = cursor;
            char *tab = strchr(cursor, '\t');
            if (!tab) break;
            *tab = 0;
            cursor = tab + 1;
        }
        if (n != 14) { fprintf(stderr, "baseline: line %ld has %d fields\n", count + 1, n); return 65; }
        unsigned char uuid[16];
        for (int i = 0; i < 16; i++) uuid[i] = (unsigned char)(hexval(fields[1][2 * i]) << 4 | hexval(fields[1][2 * i + 1]));
        sqlite3_bind_int64(insert, 1, atoll(fields[0]));
        sqlite3_bind_blob(insert, 2, uuid, 16, SQLITE_TRANSIENT);
        sqlite3_bind_int64(insert, 3, atoll(fields[2]));
        sqlite3_bind_int64(insert, 4, atoll(fields[3]));
        sqlite3_bind_int64(insert, 5, atoll(fields[4]));
        sqlite3_bind_double(insert, 6, strtod(fields[5], 0));
        sqlite3_bind_int64(insert, 7, atoll(fields[6]));
        sqlite3_bind_text(insert, 8, fields[7], -1, SQLITE_TRANSIENT);
        for (int column = 8; column < 14; column++) {
            const char *text = fields[column];
            int index = column + 1;
            if (strcmp(text, "<null>") == 0) { sqlite3_bind_null(insert, index); continue; }
            if (column == 8 || column == 11 || column == 12) sqlite3_bind_int64(insert, index, atoll(text));
            else sqlite3_bind_text(insert, index, text, -1, SQLITE_TRANSIENT);
        }
        check(sqlite3_step(insert), db, "insert");
        sqlite3_reset(insert);
        count++;
    }
    check(sqlite3_exec(db, "COMMIT", 0, 0, 0), db, "commit");
    sqlite3_finalize(insert);
    sqlite3_close(db);
    printf("baseline: inserted %ld rows\n", count);
    return 0;
}
