#include "runner/h5in.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "runner/h5util.h"

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
    char *schema = h5_read_str(f, "schema");
    int rc = -1;
    if (!schema || strncmp(schema, "tilelab/", 8)) {
        tl_err_set(e, "%s: not a tilelab result file (no schema attribute)", path);
    } else if (!h5_schema_ok(schema)) {
        tl_err_set(e, "%s: schema %s, this runner reads tilelab/1.x", path, schema);
    } else if (!(s->config_yaml = h5_read_str(f, "config_yaml"))) {
        tl_err_set(e, "%s: has no config_yaml attribute", path);
    } else {
        s->config_path = h5_read_str(f, "config_path");
        s->created_utc = h5_read_str(f, "created_utc");
        s->host = h5_read_str(f, "host");
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
