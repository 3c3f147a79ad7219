/* report_table: each row's "% cublas" is the op's library baseline on the row's own problem (sizes, layouts,
 * dtype), the first such result of the run with samples; a problem without one reads "-". */
#include <stdlib.h>

#include "runner/ops/registry_lookup.h"
#include "runner/run/report.h"
#include "runner/testing/testutil.h"

/* The "% cublas" field of the table's row for (variant, sizes, layout), or NULL. */
static char *pct_of(const char *table, const char *variant, const char *sizes, const char *layout, char *out, size_t n)
{
    char *copy = strdup(table), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char v[64], p[64], s[64], l[64], d[16], med[32], gf[32], pct[32];
        if (sscanf(line, "%63s %63s %63s %63s %15s %31s %31s %31s", v, p, s, l, d, med, gf, pct) != 8) continue;
        if (!strcmp(v, variant) && !strcmp(s, sizes) && !strcmp(l, layout)) {
            snprintf(out, n, "%s", pct);
            free(copy);
            return out;
        }
    }
    free(copy);
    return NULL;
}

int main(void)
{
    const reg_op *op = reg_find_op("sgemm");
    const reg_variant *cublas = reg_find_variant(op, "cublas"), *hopper = reg_find_variant(op, "hopper");
    tl_experiment x = {.op = op};
    /* (variant, sizes, layout, median ms): P1 with its baseline after the kernel, P2 without one, P3 with
     * two (the first counts), P1's sizes in another layout without one, and a baseline that was not measured. */
    const struct {
        const reg_variant *v;
        const char *sizes, *layout;
        double ms;
    } row[] = {
        {hopper, "m=64,n=64,k=64", "a=row,b=row", 2.0},   {cublas, "m=64,n=64,k=64", "a=row,b=row", 1.0},
        {hopper, "m=96,n=64,k=64", "a=row,b=row", 1.0},   {cublas, "m=128,n=64,k=64", "a=row,b=row", 2.0},
        {cublas, "m=128,n=64,k=64", "a=row,b=row", 4.0},  {hopper, "m=128,n=64,k=64", "a=row,b=row", 1.0},
        {hopper, "m=64,n=64,k=64", "a=col,b=row", 1.0},   {cublas, "m=32,n=64,k=64", "a=row,b=row", 0.0},
        {hopper, "m=32,n=64,k=64", "a=row,b=row", 1.0},
    };
    enum { N = sizeof row / sizeof row[0] };
    tl_case c[N];
    tl_result r[N];
    memset(c, 0, sizeof c);
    memset(r, 0, sizeof r);
    for (int i = 0; i < N; i++) {
        c[i] = (tl_case){.op = op, .variant = row[i].v, .run = row[i].v, .params_text = "", .dtype = "f32"};
        c[i].sizes_text = (char *)row[i].sizes;
        c[i].layout_text = (char *)row[i].layout;
        r[i].c = &c[i];
        r[i].status = row[i].ms > 0 ? "ok" : "error";
        r[i].samples.n = row[i].ms > 0 ? 10 : 0;
        r[i].st.median_ms = row[i].ms;
        r[i].gflops = 1.0;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_table(f, &x, r, N);
    fclose(f);
    const struct {
        const char *variant, *sizes, *layout, *want;
    } want[] = {
        {"hopper", "m=64,n=64,k=64", "a=row,b=row", "50.0"},   {"cublas", "m=64,n=64,k=64", "a=row,b=row", "100.0"},
        {"hopper", "m=96,n=64,k=64", "a=row,b=row", "-"},      {"hopper", "m=128,n=64,k=64", "a=row,b=row", "200.0"},
        {"hopper", "m=64,n=64,k=64", "a=col,b=row", "-"},      {"hopper", "m=32,n=64,k=64", "a=row,b=row", "-"},
    };
    int total = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++, total++) {
        char got[32];
        const char *p = pct_of(buf, want[i].variant, want[i].sizes, want[i].layout, got, sizeof got);
        CHECK(p && !strcmp(p, want[i].want), "%s %s %s: %% cublas %s, want %s\n%s", want[i].variant, want[i].sizes,
              want[i].layout, p ? p : "(no row)", want[i].want, buf);
    }
    free(buf);

    /* Columns as wide as their widest text: with one row's params of 130 characters, every row's figures
     * still begin where the heading's "median ms" column does. */
    char long_params[131];
    memset(long_params, 'P', 130), long_params[130] = '\0';
    c[2].params_text = long_params;
    f = open_memstream(&buf, &len);
    report_table(f, &x, r, N);
    fclose(f);
    const char *head = strstr(buf, "median ms");
    CHECK(head != NULL, "no heading\n%s", buf);
    /* The table begins with an empty line, then the heading: where its "median ms" ends. */
    size_t at = head ? (size_t)(head - (buf + 1)) + strlen("median ms") : 1;
    int rows = 0;
    char *copy = strdup(buf), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strstr(line, "median ms")) continue;
        rows++;
        int figure_ends = strlen(line) > at && line[at] == ' ' && line[at - 1] && strchr("0123456789-", line[at - 1]);
        CHECK(figure_ends, "a figure does not end at column %zu: %s\n%s", at, line, buf);
    }
    CHECK(rows == N, "%d rows, want %d\n%s", rows, N, buf);
    total += 2;
    free(copy), free(buf);
    return TEST_REPORT(total);
}
