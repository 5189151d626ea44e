/* The Jupyter wire format (messaging spec 5.4, "The Wire Protocol"):
 *   [identities...] "<IDS|MSG>" signature header parent_header metadata content [buffers...]
 * Decoding checks the frames, the HMAC-SHA256 signature (constant time) and
 * the replay set before any JSON is parsed; encoding builds signed frames.
 * Nothing here touches a socket: frames are plain byte blobs. */
#ifndef ICUDA_WIRE_H
#define ICUDA_WIRE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay.h"

#define WIRE_DELIM "<IDS|MSG>"
#define WIRE_PROTOCOL_VERSION "5.4"

typedef struct wire_blob {
    void *data;
    size_t len;
} wire_blob_t;

/* A list of frames that owns its bytes. */
typedef struct wire_frames {
    wire_blob_t *f;
    size_t n, cap;
} wire_frames_t;

void wire_frames_push(wire_frames_t *fr, const void *data, size_t len);
/* The same for a client's message, whose size the client chose: false, with
 * nothing added, when there is no memory for its copy. */
bool wire_frames_try_push(wire_frames_t *fr, const void *data, size_t len);
void wire_frames_clear(wire_frames_t *fr);

/* Signing state: the key from the connection file and this kernel's session
 * id. Read-only after wire_init, so any thread may sign. */
typedef struct wire {
    unsigned char *key;
    size_t key_len; /* 0: messages are neither signed nor checked */
    char session[40];
    void *mac_template; /* EVP_MAC_CTX keyed once; each signature works on a copy */
} wire_t;

void wire_init(wire_t *w, const char *key);
void wire_free(wire_t *w);

/* A decoded message. header/parent/metadata/content are owned references;
 * msg_type points into header (NULL if the header has no string msg_type). */
typedef struct wire_msg {
    wire_frames_t idents;
    json_t *header, *parent, *metadata, *content;
    wire_frames_t buffers;
    const char *msg_type;
    bool no_memory; /* WIRE_BAD_BODY because its JSON did not fit in memory */
} wire_msg_t;

typedef enum wire_status {
    WIRE_OK = 0,
    WIRE_MALFORMED,   /* no delimiter or too few frames: nothing to answer */
    WIRE_BAD_SIGNATURE,
    WIRE_REPLAYED,
    WIRE_BAD_HEADER,  /* header unreadable: cannot tell what was asked */
    WIRE_BAD_BODY,    /* header fine (msg has header + msg_type), the rest not */
} wire_status_t;

/* A header's "date" (ISO 8601) in microseconds since the epoch, INT64_MIN
 * when absent or not a date: the replay set's clock (replay.h). */
int64_t wire_date_us(const char *iso);

/* Decodes frames into msg. replay may be NULL (no replay check). On
 * WIRE_BAD_BODY, msg->header and msg->idents are set so the caller can send
 * an error reply; on other failures msg holds nothing. why gets a reason.
 * Always call wire_msg_clear afterwards. */
wire_status_t wire_decode(const wire_t *w, replay_t *replay, const wire_blob_t *frames,
                          size_t n, wire_msg_t *msg, char *why, size_t whylen);
/* The same checks (frames, signature, replay, header) for a message too
 * large to be taken whole, whose sender is still owed an answer: nothing
 * after the header is parsed or copied (msg->parent, metadata and content
 * stay NULL, buffers empty), and a header frame over max_header bytes is
 * WIRE_BAD_HEADER. WIRE_OK and WIRE_BAD_BODY set msg->header and idents. */
wire_status_t wire_decode_header(const wire_t *w, replay_t *replay, const wire_blob_t *frames,
                                 size_t n, size_t max_header, wire_msg_t *msg, char *why, size_t whylen);
void wire_msg_clear(wire_msg_t *msg);

/* Builds a signed message: idents (may be NULL/0) then the delimiter,
 * signature, a new header of msg_type, parent (NULL: {}), metadata (NULL:
 * {}), content. Appends the frames to out. Returns 0, or -1 if some JSON
 * could not be serialised. */
int wire_encode(const wire_t *w, const wire_frames_t *idents, const char *msg_type,
                json_t *parent, json_t *metadata, json_t *content, wire_frames_t *out);

/* HMAC-SHA256 of the given parts as lowercase hex (65 bytes with NUL). With
 * an empty key, out is "". Also gives the raw digest if digest != NULL. */
void wire_sign(const wire_t *w, const wire_blob_t *parts, size_t nparts, char out[65],
               unsigned char digest[32]);

/* Constant-time check of a received signature frame against the parts. */
bool wire_verify(const wire_t *w, const wire_blob_t *parts, size_t nparts, const void *sig,
                 size_t siglen, unsigned char digest[32]);

/* Helpers shared with the server. */
void wire_new_uuid(char out[37]);
void wire_now_iso8601(char out[40]);

#endif
