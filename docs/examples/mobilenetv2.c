/* Calling a Strata-compiled model from C.
 *
 *   strata compile mobilenetv2.onnx --target=host -o libmobilenetv2.so   # also writes mobilenetv2.h
 *   cc mobilenetv2.c -I. -L. -lmobilenetv2 -Wl,-rpath,'$ORIGIN' -o mobilenetv2
 *   ./mobilenetv2 input.npy logits.npy
 *
 * Reads a float32 .npy of the model's input shape, runs the model once, writes the logits as a
 * float32 .npy and prints the top-5 classes. Everything the ABI needs is in the generated
 * header: the entry point, the arena size and alignment, each buffer's element count, and a
 * check that the library loaded is the one the header was generated with. The
 * library carries the weights blob (`strata_mobilenetv2_weights`), which the entry point uses
 * when `weights` is NULL. (cargo xtask zoo builds and runs this program and checks its output
 * against `strata run`.) */
#include "mobilenetv2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the data of a little-endian float32 .npy (format 1.0 or 2.0) with `count` elements. */
static float *read_npy(const char *path, size_t count) {
    FILE *file = fopen(path, "rb");
    if (!file) { perror(path); return NULL; }
    unsigned char magic[8];
    size_t header = 0;
    if (fread(magic, 1, 8, file) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0) {
        fprintf(stderr, "%s: not a .npy file\n", path);
        fclose(file);
        return NULL;
    }
    unsigned char length[4] = {0};
    size_t width = magic[6] == 1 ? 2 : 4;
    if (fread(length, 1, width, file) != width) { fclose(file); return NULL; }
    header = length[0] | (length[1] << 8) | ((size_t)length[2] << 16) | ((size_t)length[3] << 24);
    char *dict = malloc(header + 1);
    if (!dict || fread(dict, 1, header, file) != header) { free(dict); fclose(file); return NULL; }
    dict[header] = 0;
    if (!strstr(dict, "'<f4'") || strstr(dict, "'fortran_order': True")) {
        fprintf(stderr, "%s: expected C-ordered float32 data, header %s\n", path, dict);
        free(dict);
        fclose(file);
        return NULL;
    }
    free(dict);
    float *data = malloc(count * sizeof(float));
    if (!data || fread(data, sizeof(float), count, file) != count) {
        fprintf(stderr, "%s: expected %zu float32 values\n", path, count);
        free(data);
        data = NULL;
    }
    fclose(file);
    return data;
}

/* Writes `count` floats as a .npy of shape (1, count). */
static int write_npy(const char *path, const float *data, size_t count) {
    char dict[128];
    int used = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, %zu), }", count);
    size_t total = 10 + (size_t)used + 1;
    size_t padded = (total + 63) / 64 * 64;
    memset(dict + used, ' ', padded - total);
    dict[used + (padded - total)] = '\n';
    size_t header = padded - 10;
    FILE *file = fopen(path, "wb");
    if (!file) { perror(path); return 1; }
    unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(header & 0xff), (unsigned char)(header >> 8)};
    int ok = fwrite(prefix, 1, 10, file) == 10 && fwrite(dict, 1, header, file) == header && fwrite(data, sizeof(float), count, file) == count;
    return fclose(file) != 0 || !ok;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s input.npy logits.npy\n", argv[0]);
        return 2;
    }
    /* The library found at run time must be the one the header describes. */
    if (!strata_mobilenetv2_check_library()) {
        fprintf(stderr, "libmobilenetv2.so does not match mobilenetv2.h: rebuild this program against it\n");
        return 1;
    }
    float *input = read_npy(argv[1], STRATA_MOBILENETV2_INPUT_0_ELEMENTS);
    float *logits = calloc(STRATA_MOBILENETV2_OUTPUT_0_ELEMENTS, sizeof(float));
    /* The arena: caller-owned scratch memory, reusable across calls. */
    unsigned char *arena = aligned_alloc(STRATA_MOBILENETV2_ARENA_ALIGNMENT,
        (STRATA_MOBILENETV2_ARENA_BYTES + STRATA_MOBILENETV2_ARENA_ALIGNMENT - 1) / STRATA_MOBILENETV2_ARENA_ALIGNMENT * STRATA_MOBILENETV2_ARENA_ALIGNMENT);
    if (!input || !logits || !arena) return 1;

    const void *inputs[] = {input};
    void *outputs[] = {logits};
    int status = strata_mobilenetv2_run(NULL, arena, inputs, outputs);
    if (status != 0) {
        fprintf(stderr, "the model's run-time check %d failed\n", status);
        return 1;
    }

    size_t top[5] = {0};
    for (int rank = 0; rank < 5; rank++) {
        int found = 0;
        for (size_t i = 0; i < STRATA_MOBILENETV2_OUTPUT_0_ELEMENTS; i++) {
            int taken = 0;
            for (int r = 0; r < rank; r++) taken |= top[r] == i;
            if (!taken && (!found || logits[i] > logits[top[rank]])) { top[rank] = i; found = 1; }
        }
        printf("top-%d: class %zu (%.4f)\n", rank + 1, top[rank], logits[top[rank]]);
    }
    int failed = write_npy(argv[2], logits, STRATA_MOBILENETV2_OUTPUT_0_ELEMENTS);
    free(input);
    free(logits);
    free(arena);
    return failed;
}
