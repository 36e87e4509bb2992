/*
 * Stand-in for miniaudio.h, written for nova's real-server suite.
 *
 * Go module zips drop vendor/ directories, so the Ollama release that still
 * compiles llama.cpp with cgo misses llama.cpp's vendored miniaudio header.
 * It is only used to decode audio input (mtmd-helper.cpp), which nova never
 * sends; every decoder call here fails, so audio input is simply refused.
 * Passed to the build with CGO_CPPFLAGS=-I<this directory's parent>.
 */
#ifndef NOVA_MINIAUDIO_STANDIN_H
#define NOVA_MINIAUDIO_STANDIN_H

#include <stddef.h>
#include <stdint.h>

typedef int ma_result;
typedef uint64_t ma_uint64;
typedef enum { ma_format_unknown = 0, ma_format_f32 = 5 } ma_format;
typedef enum { ma_encoding_format_unknown = 0, ma_encoding_format_wav = 1 } ma_encoding_format;

#define MA_SUCCESS 0
#define MA_NOT_IMPLEMENTED (-29)

typedef struct { ma_format format; uint32_t channels; uint32_t sampleRate; } ma_decoder_config;
typedef struct { int unused; } ma_decoder;
typedef struct { int unused; } ma_encoder_config;
typedef struct { int unused; } ma_encoder;

static inline ma_decoder_config ma_decoder_config_init(ma_format f, uint32_t ch, uint32_t rate) {
    ma_decoder_config c; c.format = f; c.channels = ch; c.sampleRate = rate; return c;
}
static inline ma_result ma_decoder_init_memory(const void *d, size_t n, const ma_decoder_config *c, ma_decoder *dec) {
    (void)d; (void)n; (void)c; (void)dec; return MA_NOT_IMPLEMENTED;
}
static inline ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder *dec, ma_uint64 *n) {
    (void)dec; if (n) { *n = 0; } return MA_NOT_IMPLEMENTED;
}
static inline ma_result ma_decoder_read_pcm_frames(ma_decoder *dec, void *out, ma_uint64 n, ma_uint64 *read) {
    (void)dec; (void)out; (void)n; if (read) { *read = 0; } return MA_NOT_IMPLEMENTED;
}
static inline ma_result ma_decoder_uninit(ma_decoder *dec) { (void)dec; return MA_SUCCESS; }

#endif
