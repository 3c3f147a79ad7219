/* The result schema's table (runner/store/schema.c) against what is made from it: the Python reader's constants
 * (analysis/tilelab_analysis/schema.py) and results/README.md's tables, between `<!-- schema:GROUP -->` and
 * `<!-- /schema:GROUP -->`; and against the code that names rows by position (the phases, /summary's row type).
 *
 *   schema_doc_test SCHEMA_PY README            checks (exit 1 when a generated text is not current)
 *   bazel run //runner/store:schema_doc_test -- --write    writes both anew into the checkout */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/exec/result.h"
#include "runner/store/h5util.h"
#include "runner/store/schema.h"
#include "runner/testing/testutil.h"

static const char *const presence_names[] = {"always", "sometimes"};
static const char *const check_names[] = {"", "must", "ifthere"};

/* A Python literal of a C string (the table's are plain ASCII with quotes and backquotes at most). */
static void py_str(tl_buf *b, const char *s)
{
    tl_buf_puts(b, "\"");
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') tl_buf_puts(b, "\\");
        tl_buf_put(b, s, 1);
    }
    tl_buf_puts(b, "\"");
}

static char *python_module(void)
{
    tl_buf b = {0};
    tl_buf_printf(&b, "\"\"\"The result file's schema, for the readers: made from runner/store/schema.c by runner/store/schema_doc_test.c\n"
                      "(`bazel run //runner/store:schema_doc_test -- --write`); edit the table there, not this file.\"\"\"\n\n");
    tl_buf_printf(&b, "MINOR = %d\nVERSION = \"%s\"\n", SCH_MINOR, SCH_VERSION);
    tl_buf_puts(&b, "STATUSES = (");
    for (int i = 0; i < SCH_NSTATUSES; i++) tl_buf_printf(&b, "%s\"%s\"", i ? ", " : "", sch_statuses[i]);
    tl_buf_puts(&b, ")\n\n# (group, name, type, unit, since, presence, check, lo, hi, what, reader's default)\nFIELDS = (\n");
    for (int i = 0; i < SCH_N; i++) {
        const sch_field *f = &sch_fields[i];
        tl_buf_printf(&b, "    (\"%s\", \"%s\", \"%s\", ", sch_group_names[f->group], f->name, sch_type_names[f->type]);
        py_str(&b, f->unit);
        tl_buf_printf(&b, ", %d, \"%s\", \"%s\", ", f->since, presence_names[f->presence], check_names[f->check]);
        if (f->check == SCH_IFTHERE) {
            tl_buf_printf(&b, "%.17g, %.17g, ", f->lo, f->hi);
            py_str(&b, f->what);
        } else {
            tl_buf_puts(&b, "None, None, None");
        }
        tl_buf_printf(&b, ", %s),\n", f->reader_default ? f->reader_default : "None");
    }
    tl_buf_puts(&b, ")\n\n# The phases of a case's wall time (its attributes t_<phase>_s), in the runner's order.\nPHASES = (");
    for (int p = 0; p < PH_N; p++) {
        const char *n = sch_fields[SCH_CASE_T_COMPILE_S + p].name;
        tl_buf_printf(&b, "%s\"%.*s\"", p ? ", " : "", (int)strlen(n) - 4, n + 2);
    }
    tl_buf_puts(&b, ")\n");
    return b.s;
}

/* A table cell's text: a '|' would end the cell. */
static void md_cell(tl_buf *b, const char *s)
{
    for (; *s; s++) *s == '|' ? tl_buf_puts(b, "\\|") : tl_buf_put(b, s, 1);
}

static char *markdown(sch_group g)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    if (g == SCH_ROOT) tl_buf_printf(&b, "This runner writes `%s`.\n\n", SCH_VERSION);
    tl_buf_printf(&b, "| %s | type | unit | since | meaning |\n|---|---|---|---|---|\n",
                  g == SCH_DATA ? "dataset" : g == SCH_SUMMARY ? "field" : "attribute");
    for (int i = 0; i < SCH_N; i++) {
        const sch_field *f = &sch_fields[i];
        if (f->group != g) continue;
        tl_buf_printf(&b, "| `%s` | %s | %s | 1.%d | ", f->name, sch_type_names[f->type], f->unit, f->since);
        md_cell(&b, f->doc);
        tl_buf_printf(&b, "%s |\n", f->check == SCH_MUST ? "; readers refuse a file without it" : "");
    }
    return b.s;
}

/* README with each group's table put between its markers; NULL (and a message) when a marker is missing. */
static char *readme_with_tables(const char *readme)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    const char *at = readme;
    for (int g = 0; g < SCH_NGROUPS; g++) {
        char open[64], close[64];
        snprintf(open, sizeof open, "<!-- schema:%s -->\n", sch_group_names[g]);
        snprintf(close, sizeof close, "<!-- /schema:%s -->", sch_group_names[g]);
        const char *o = strstr(at, open), *c = o ? strstr(o, close) : NULL;
        if (!o || !c) {
            fprintf(stderr, "schema_doc_test: results/README.md has no '%.*s' ... '%s' for the table of group %s\n",
                    (int)strlen(open) - 1, open, close, sch_group_names[g]);
            free(b.s);
            return NULL;
        }
        tl_buf_put(&b, at, (size_t)(o - at) + strlen(open));
        char *table = markdown((sch_group)g);
        tl_buf_puts(&b, table);
        free(table);
        at = c;
    }
    tl_buf_puts(&b, at);
    return b.s;
}

/* The rows the code names by position: the phases (result.h's order), /summary's row type (h5util.c). */
static int check_positions(void)
{
    for (int p = 0; p < PH_N; p++) {
        char want[32];
        snprintf(want, sizeof want, "t_%s_s", tl_phase_names[p]);
        CHECK(!strcmp(sch_fields[SCH_CASE_T_COMPILE_S + p].name, want) &&
                  !strcmp(sch_fields[SCH_SESSION_T_COMPILE_S + p].name, want),
              "phase %d is %s in the runner, %s / %s in the schema", p, want, sch_fields[SCH_CASE_T_COMPILE_S + p].name,
              sch_fields[SCH_SESSION_T_COMPILE_S + p].name);
    }
    hid_t t = h5util_summary_type();
    CHECK(t >= 0, "no /summary row type");
    int k = 0;
    for (int i = 0; i < SCH_N && t >= 0; i++) {
        if (sch_fields[i].group != SCH_SUMMARY) continue;
        char *name = H5Tget_member_name(t, (unsigned)k++);
        CHECK(name && !strcmp(name, sch_fields[i].name), "/summary's field %d is %s, the schema's %s", k - 1,
              name ? name : "none", sch_fields[i].name);
        H5free_memory(name);
    }
    CHECK(t >= 0 && H5Tget_nmembers(t) == k, "/summary's row has %d fields, the schema %d", t >= 0 ? H5Tget_nmembers(t) : 0, k);
    if (t >= 0) H5Tclose(t);
    for (int i = 0; i < SCH_N; i++) {
        const sch_field *f = &sch_fields[i];
        CHECK(f->name && f->doc && f->doc[0] && f->unit, "schema row %d is not filled in", i);
        CHECK(i == 0 || f->group >= sch_fields[i - 1].group, "row %s is out of its group's place", f->name);
        CHECK(f->since >= 0 && f->since <= SCH_MINOR, "row %s: since 1.%d, the schema is 1.%d", f->name, f->since, SCH_MINOR);
        CHECK(f->check != SCH_IFTHERE || (f->what && f->lo <= f->hi), "row %s: its bounds", f->name);
    }
    return 1;
}

/* want against the file at path (relative to where the test started), or written there. */
static int compare_or_write(const char *path, const char *want, int write)
{
    const char *root = getenv("BUILD_WORKSPACE_DIRECTORY");
    char *full = write && root ? tl_xasprintf("%s/%s", root, path) : tl_xstrdup(path);
    tl_err e;
    int rc = 0;
    if (write) {
        rc = tl_write_file_atomic(full, want, strlen(want), &e);
        if (rc) fprintf(stderr, "schema_doc_test: %s\n", e.msg);
        else printf("wrote %s\n", full);
    } else {
        size_t len = 0;
        char *have = tl_read_file(full, &len, &e);
        CHECK(have && len == strlen(want) && !memcmp(have, want, len),
              "%s is not what runner/store/schema.c makes: bazel run //runner/store:schema_doc_test -- --write", path);
        free(have);
    }
    free(full);
    return rc;
}

int main(int argc, char **argv)
{
    int write = argc > 1 && !strcmp(argv[argc - 1], "--write");
    const char *py = "analysis/tilelab_analysis/schema.py", *readme = "results/README.md";
    const char *root = getenv("BUILD_WORKSPACE_DIRECTORY");
    tl_err e;
    size_t len = 0;
    char *rpath = write && root ? tl_xasprintf("%s/%s", root, readme) : tl_xstrdup(readme);
    char *text = tl_read_file(rpath, &len, &e);
    free(rpath);
    if (!text) {
        fprintf(stderr, "schema_doc_test: %s\n", e.msg);
        return 2;
    }
    int total = check_positions();
    char *module = python_module(), *doc = readme_with_tables(text);
    CHECK(doc != NULL, "results/README.md lacks a table's markers");
    if (doc) total += compare_or_write(readme, doc, write) == 0;
    total += compare_or_write(py, module, write) == 0;
    free(module), free(doc), free(text);
    if (write) return test_failures ? 1 : 0;
    return TEST_REPORT(total);
}
