/* Calls a compiled model through its C header (lit-tests/driver/run-time-checks.mlir): a
   token id out of range makes the entry point return the Gather's status, and a valid call
   returns 0. */
#include "checked.h"
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  float table[12] = {0};
  int64_t ids[2] = {1, 4};
  int32_t a[3] = {7, -7, 9}, b[3] = {2, 2, 3};
  int64_t at[4] = {3, 2, 0, 0};
  float rows[6], picked[2];
  int32_t q[3];
  const void *inputs[] = {table, ids, a, b, at};
  void *const outputs[] = {rows, q, picked};
  uint8_t *arena = aligned_alloc(STRATA_CHECKED_ARENA_ALIGNMENT,
                                 (STRATA_CHECKED_ARENA_BYTES + STRATA_CHECKED_ARENA_ALIGNMENT - 1) /
                                     STRATA_CHECKED_ARENA_ALIGNMENT * STRATA_CHECKED_ARENA_ALIGNMENT);
  printf("library matches header: %d\n", strata_checked_check_library());
  printf("out of range: status %d\n", strata_checked_run(NULL, arena, inputs, outputs));
  ids[1] = -4;
  printf("in range: status %d\n", strata_checked_run(NULL, arena, inputs, outputs));
  free(arena);
  return 0;
}
