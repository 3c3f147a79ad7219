/* search_plan: the searches of an experiment's plan (runner/search/search.h): which problem each case solves, and for
 * the cases of a variant entry with list-valued params, their search and their place in its space. */
#ifndef TILELAB_SEARCH_PLAN_H
#define TILELAB_SEARCH_PLAN_H

#include "runner/plan/plan.h"
#include "runner/search/search.h"

typedef struct {
    search_space *spaces; /* one a (problem, searched entry), in plan order */
    int nspaces;
    int nproblems;
    int *problem_of;    /* per plan case: its problem, numbered in order of first appearance */
    int *space_of;      /* per plan case: its search, or -1 (a case that runs as in a sweep) */
    int *point_of;      /* per plan case in a search that the rules let run: its point, else -1 */
} search_plan;

/* The searches of x's plan p (x->search set, or not: an experiment without it can be replayed as if it had
 * one). -1 with e when no entry of x has a list-valued param. */
int search_plan_make(const tl_experiment *x, const tl_plan *p, search_plan *sp, tl_err *e);
void search_plan_free(search_plan *sp);
/* "m=4096,n=4096,k=4096 a=row,b=row f32 hopper": a search, as messages name it (malloc'd). */
char *search_space_label(const tl_plan *p, const search_space *s);

#endif
