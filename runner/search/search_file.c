/* What a result file holds of a search's points: each case's status, objective and wall time, read as the run
 * wrote them (the median of the stored samples is the median the run saw: the same doubles, the same code). */
#include "runner/search/search_driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runner/store/h5in.h"
#include "runner/store/h5util.h"
#include "runner/store/schema.h"

/* The status as one of the schema's strings (they outlive the file). */
static const char *known_status(const char *s)
{
    for (int k = 0; s && k < SCH_NSTATUSES; k++)
        if (!strcmp(s, sch_statuses[k])) return sch_statuses[k];
    return NULL;
}

static double median_of(hid_t g)
{
    double m = NAN;
    hid_t d = H5Dopen2(g, "time_ms", H5P_DEFAULT), sp = d >= 0 ? H5Dget_space(d) : -1;
    hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (n > 0 && n < (1 << 26)) {
        double *x = tl_xcalloc((size_t)n, sizeof *x);
        if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0) {
            measure_stats st;
            measure_stats_compute(x, (int)n, &st);
            m = st.median_ms;
        }
        free(x);
    }
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    return m;
}

static double counter_of(hid_t g, const char *name)
{
    double v = NAN;
    if (H5Lexists(g, "counters", H5P_DEFAULT) <= 0) return v;
    hid_t d = H5Dopen2(g, "counters", H5P_DEFAULT), sp = d >= 0 ? H5Dget_space(d) : -1, mt = h5util_counter_type();
    hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (n > 0 && n < 4096 && mt >= 0) {
        h5util_counter_row *rows = tl_xcalloc((size_t)n, sizeof *rows);
        if (H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0) {
            for (hssize_t k = 0; k < n; k++)
                if (rows[k].name && !strcmp(rows[k].name, name)) v = rows[k].value;
            H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, rows);
        }
        free(rows);
    }
    if (mt >= 0) H5Tclose(mt);
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    return v;
}

int search_held_read(hid_t f, const char *path, const tl_plan *p, const search_spec *s, search_held **out, tl_err *e)
{
    search_held *h = tl_xcalloc((size_t)p->ncases + 1, sizeof *h);
    plan_id *ids = plan_ids(p);
    hid_t cases = H5Gopen2(f, "/cases", H5P_DEFAULT);
    if (cases < 0) {
        free(h), free(ids);
        tl_err_set(e, "%s: cannot read /cases", path);
        return -1;
    }
    for (int k = 0; k < p->ncases; k++) {
        const plan_id *id = &ids[k];
        if (H5Lexists(cases, id->id, H5P_DEFAULT) <= 0) continue;
        hid_t g = H5Gopen2(cases, id->id, H5P_DEFAULT);
        if (g < 0) continue;
        search_held *c = &h[id->index];
        char *status = h5util_read_str(g, "status");
        c->status = known_status(status);
        free(status);
        c->objective = NAN;
        if (c->status && !strcmp(c->status, "ok")) {
            if (s->objective == SEARCH_TIME) c->objective = median_of(g);
            else if (s->objective == SEARCH_ENERGY) h5util_read_f64(g, "energy_j", &c->objective);
            else c->objective = counter_of(g, s->counter);
        }
        c->cost_s = 0;
        for (int ph = 0; ph < PH_N; ph++) {
            double t = 0;
            if (h5util_read_f64(g, sch_fields[SCH_CASE_T_COMPILE_S + ph].name, &t) == 0 && isfinite(t) && t > 0)
                c->cost_s += t;
        }
        H5Gclose(g);
    }
    H5Gclose(cases);
    free(ids);
    *out = h;
    return 0;
}

int search_share_unfinished(const char *path, const tl_experiment *x, const tl_plan *p, const unsigned char *share,
                          int *unfinished, tl_err *e)
{
    search_plan sp;
    if (search_plan_make(x, p, &sp, e)) return -1;
    search_held *held = NULL;
    hid_t f = h5in_open(path, e);
    int rc = f < 0 ? -1 : search_held_read(f, path, p, x->search, &held, e);
    if (f >= 0) H5Fclose(f);
    if (rc == 0) {
        /* The driver hands out only what the file lacks: its first proposal is what --resume would run. */
        search_driver *d = search_driver_new(x, p, &sp, share, held);
        *unfinished = search_driver_next(d) >= 0;
        search_driver_free(d);
    }
    free(held);
    search_plan_free(&sp);
    return rc;
}
