#include "runner/h5in.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "runner/h5out.h"

/* A string attribute of the root group, variable- or fixed-length; NULL when absent. */
static char *read_str(hid_t file, const char *name)
{
    char *out = NULL;
    hid_t a = -1, t = -1, mt = -1;
    if (H5Aexists(file, name) <= 0) return NULL;
    if ((a = H5Aopen(file, name, H5P_DEFAULT)) < 0 || (t = H5Aget_type(a)) < 0 || H5Tget_class(t) != H5T_STRING)
        goto out;
    if (H5Tis_variable_str(t) > 0) {
        char *v = NULL;
        if ((mt = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Tset_cset(mt, H5T_CSET_UTF8) < 0 ||
            H5Aread(a, mt, &v) < 0)
            goto out;
        out = tl_xstrdup(v ? v : "");
        H5free_memory(v);
    } else {
        size_t n = H5Tget_size(t);
        out = tl_xcalloc(n + 1, 1);
        if (H5Aread(a, t, out) < 0) {
            free(out);
            out = NULL;
        }
    }
out:
    if (mt >= 0) H5Tclose(mt);
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    return out;
}

int h5in_read_source(const char *path, h5in_source *s, tl_err *e)
{
    memset(s, 0, sizeof *s);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0) {
        tl_err_set(e, "%s: not a readable HDF5 file", path);
        return -1;
    }
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        tl_err_set(e, "%s: cannot open", path);
        return -1;
    }
    char *schema = read_str(f, "schema");
    int rc = -1;
    if (!schema || strncmp(schema, "tilelab/", 8)) {
        tl_err_set(e, "%s: not a tilelab result file (no schema attribute)", path);
    } else if (strcmp(schema, H5OUT_SCHEMA)) {
        tl_err_set(e, "%s: schema %s, this runner reads %s", path, schema, H5OUT_SCHEMA);
    } else if (!(s->config_yaml = read_str(f, "config_yaml"))) {
        tl_err_set(e, "%s: has no config_yaml attribute", path);
    } else {
        s->config_path = read_str(f, "config_path");
        s->created_utc = read_str(f, "created_utc");
        s->host = read_str(f, "host");
        rc = 0;
    }
    free(schema);
    H5Fclose(f);
    if (rc) h5in_source_free(s);
    return rc;
}

void h5in_source_free(h5in_source *s)
{
    free(s->config_yaml);
    free(s->config_path);
    free(s->created_utc);
    free(s->host);
    memset(s, 0, sizeof *s);
}
