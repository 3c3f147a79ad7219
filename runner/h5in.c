#include "runner/h5in.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "runner/h5src.h"
#include "runner/h5util.h"

int h5in_read_source(const char *path, h5in_source *s, tl_err *e)
{
    memset(s, 0, sizeof *s);
    hid_t f = h5_open_result(path, e);
    if (f < 0) return -1;
    int rc = -1;
    if (!(s->config_yaml = h5_read_str(f, "config_yaml"))) {
        tl_err_set(e, "%s: has no config_yaml attribute", path);
    } else {
        s->config_path = h5_read_str(f, "config_path");
        s->created_utc = h5_read_str(f, "created_utc");
        s->host = h5_read_str(f, "host");
        rc = 0;
    }
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

int h5in_load_sources(const char *path, int local_kernels, src_store *store, int *nfiles, tl_err *e)
{
    memset(store, 0, sizeof *store);
    hid_t f = h5_open_result(path, e);
    if (f < 0) return -1;
    int rc = h5src_load_store(f, path, local_kernels, store, nfiles, e);
    H5Fclose(f);
    return rc;
}
