/* util: the growable string and the hash that case ids come from (a plan of 10^5 cases builds its
 * texts with tl_buf_puts and tl_buf_long; they must read as printf would have written them). */
#include <limits.h>
#include <stdlib.h>

#include "runner/testing/testutil.h"
#include "runner/util/util.h"

static int check_long(void)
{
    const long long v[] = {0, 7, -1, 10, -10, 123456789, LLONG_MAX, LLONG_MIN};
    int n = 0;
    for (size_t i = 0; i < sizeof v / sizeof *v; i++, n++) {
        tl_buf b = {0};
        char want[64];
        snprintf(want, sizeof want, "x=%lld", v[i]);
        tl_buf_puts(&b, "x="), tl_buf_long(&b, v[i]);
        CHECK(b.s && !strcmp(b.s, want) && b.len == strlen(want), "%lld: got '%s', want '%s'", v[i], b.s, want);
        tl_buf_free(&b);
    }
    return n;
}

/* Appends across the first allocation (64 bytes) and its doublings, each length around the edge. */
static int check_growth(void)
{
    int n = 0;
    for (int start = 0; start < 70; start += 7)
        for (int len = 55; len < 140; len++, n++) {
            char piece[256], want[512];
            memset(piece, 'a' + len % 26, (size_t)len);
            piece[len] = '\0';
            tl_buf b = {0};
            for (int i = 0; i < start; i++) tl_buf_puts(&b, "p");
            tl_buf_printf(&b, "%s|%d", piece, len);
            tl_buf_puts(&b, piece);
            snprintf(want, sizeof want, "%.*s%s|%d%s", start, "ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp",
                     piece, len, piece);
            CHECK(b.s && !strcmp(b.s, want) && b.len == strlen(want) && b.cap > b.len, "start %d len %d: got '%s'",
                  start, len, b.s);
            tl_buf_free(&b);
        }
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    CHECK(b.s && b.s[0] == '\0' && b.len == 0, "an empty append leaves an empty string");
    tl_buf_free(&b);
    return n + 1;
}

/* Bytes with NULs among them (the compile helper's messages), across the first allocation's edge. */
static int check_put(void)
{
    int n = 0;
    for (size_t len = 0; len < 140; len += 13, n++) {
        unsigned char piece[140];
        for (size_t i = 0; i < len; i++) piece[i] = (unsigned char)(i % 3 ? i : 0);
        tl_buf b = {0};
        tl_buf_puts(&b, "ab");
        tl_buf_put(&b, piece, len);
        CHECK(b.len == len + 2 && !memcmp(b.s, "ab", 2) && !memcmp(b.s + 2, piece, len) && b.s[b.len] == '\0',
              "%zu bytes: length %zu", len, b.len);
        tl_buf_free(&b);
    }
    return n;
}

static int check_sha256(void)
{
    char hex[65];
    tl_sha256_hex("abc", 3, hex); /* FIPS 180-2's example */
    CHECK(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "sha256(abc) = %s", hex);
    tl_sha256_hex("", 0, hex);
    CHECK(!strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "sha256('') = %s", hex);
    return 2;
}

int main(void)
{
    int total = 0;
    total += check_long();
    total += check_growth();
    total += check_put();
    total += check_sha256();
    return TEST_REPORT(total);
}
