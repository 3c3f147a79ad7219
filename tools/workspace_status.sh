#!/usr/bin/env bash
# Bazel stamping: the git commit and dirty flag that go into every result file.
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  dirty=1
else
  dirty=0
fi
echo "STABLE_GIT_COMMIT $commit"
echo "STABLE_GIT_DIRTY $dirty"
