// The study-003 native caller: native threads that call a JS hook through N-API threadsafe functions
// and wait for each answer before the next call, as a native host (a bundler) calls plugin hooks.
//
//   run(target, id, calls, threads) -> Promise<{ calls, mismatches, errors }>
//     target: a function (one threadsafe function on this thread: "main" and "indirect"), or an array
//     of ids from register() (thread i calls target[i % n], each in its own worker: "direct").
//     The function is called as fn(id, token) and must answer with settle(token, answer).
//   register(fn) -> id      a threadsafe function on the calling (worker) thread, unref'd
//   unregister(id)          release it
//   settle(token, answer)   the answer of one call: checked against 'worker:' + id, then the thread goes on
#define NAPI_VERSION 8
#include <node_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REGISTERED 1024

typedef struct run_s run_t;

typedef struct {
  run_t* run;
  pthread_t thread;
  napi_threadsafe_function tsfn;
  int calls;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int settled;
  char* answer;  // room for one answer of the expected length
} caller_t;

struct run_s {
  char* id;
  size_t id_len;
  char* expected;
  size_t expected_len;
  int threads;
  caller_t* callers;
  atomic_int remaining;
  atomic_long answered, mismatches, errors;
  napi_threadsafe_function own;   // the run's own function (main, indirect), or NULL (direct)
  napi_threadsafe_function done;  // resolves the promise on the main thread
  napi_deferred deferred;
};

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static napi_threadsafe_function registry[MAX_REGISTERED];

#define CHECK(env, call)                                    \
  do {                                                      \
    if ((call) != napi_ok) {                                \
      napi_throw_error((env), NULL, "native caller: " #call); \
      return NULL;                                          \
    }                                                       \
  } while (0)

static void wake(caller_t* c) {
  pthread_mutex_lock(&c->mu);
  c->settled = 1;
  pthread_cond_signal(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

// On the hook's JS thread: fn(id, token). A closing function (env NULL) counts an error.
static void call_hook(napi_env env, napi_value fn, void* context, void* data) {
  caller_t* c = data;
  (void)context;
  if (env == NULL || fn == NULL) {
    atomic_fetch_add(&c->run->errors, 1);
    wake(c);
    return;
  }
  napi_value argv[2], undefined;
  if (napi_create_string_utf8(env, c->run->id, c->run->id_len, &argv[0]) != napi_ok ||
      napi_create_bigint_uint64(env, (uint64_t)(uintptr_t)c, &argv[1]) != napi_ok ||
      napi_get_undefined(env, &undefined) != napi_ok ||
      napi_call_function(env, undefined, fn, 2, argv, NULL) != napi_ok) {
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) {
      napi_value ignored;
      napi_get_and_clear_last_exception(env, &ignored);
    }
    atomic_fetch_add(&c->run->errors, 1);
    wake(c);
  }
}

static void* caller_main(void* arg) {
  caller_t* c = arg;
  for (int k = 0; k < c->calls; k++) {
    pthread_mutex_lock(&c->mu);
    c->settled = 0;
    pthread_mutex_unlock(&c->mu);
    if (napi_call_threadsafe_function(c->tsfn, c, napi_tsfn_blocking) != napi_ok) {
      atomic_fetch_add(&c->run->errors, 1);
      continue;
    }
    pthread_mutex_lock(&c->mu);
    while (!c->settled) pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
  }
  if (atomic_fetch_sub(&c->run->remaining, 1) == 1) {
    napi_call_threadsafe_function(c->run->done, c->run, napi_tsfn_blocking);
  }
  return NULL;
}

static void free_run(run_t* r) {
  for (int i = 0; i < r->threads; i++) {
    pthread_mutex_destroy(&r->callers[i].mu);
    pthread_cond_destroy(&r->callers[i].cv);
    free(r->callers[i].answer);
  }
  free(r->callers);
  free(r->id);
  free(r->expected);
  free(r);
}

// On the main thread once every caller is done: join, release, resolve.
static void finish(napi_env env, napi_value fn, void* context, void* data) {
  run_t* r = data;
  (void)fn;
  (void)context;
  for (int i = 0; i < r->threads; i++) pthread_join(r->callers[i].thread, NULL);
  if (r->own) napi_release_threadsafe_function(r->own, napi_tsfn_release);
  napi_release_threadsafe_function(r->done, napi_tsfn_release);
  if (env != NULL) {
    napi_value out, v;
    napi_create_object(env, &out);
    napi_create_int64(env, atomic_load(&r->answered), &v);
    napi_set_named_property(env, out, "calls", v);
    napi_create_int64(env, atomic_load(&r->mismatches), &v);
    napi_set_named_property(env, out, "mismatches", v);
    napi_create_int64(env, atomic_load(&r->errors), &v);
    napi_set_named_property(env, out, "errors", v);
    napi_resolve_deferred(env, r->deferred, out);
  }
  free_run(r);
}

static napi_value run(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4], promise, name;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t calls = 0, threads = 0;
  size_t id_len = 0;
  bool is_array = false;
  napi_valuetype target_type;
  CHECK(env, napi_typeof(env, argv[0], &target_type));
  CHECK(env, napi_is_array(env, argv[0], &is_array));
  if (argc < 4 || (target_type != napi_function && !is_array) ||
      napi_get_value_string_utf8(env, argv[1], NULL, 0, &id_len) != napi_ok ||
      napi_get_value_int32(env, argv[2], &calls) != napi_ok ||
      napi_get_value_int32(env, argv[3], &threads) != napi_ok || calls < 0 || threads < 1 || threads > 1024) {
    napi_throw_type_error(env, NULL,
                          "run(target, id, calls, threads): expected a function or ids, a string, calls >= 0, "
                          "1..1024 threads");
    return NULL;
  }
  run_t* r = calloc(1, sizeof(run_t));
  r->id = malloc(id_len + 1);
  r->id_len = id_len;
  napi_get_value_string_utf8(env, argv[1], r->id, id_len + 1, NULL);
  r->expected_len = id_len + 7;
  r->expected = malloc(r->expected_len + 1);
  memcpy(r->expected, "worker:", 7);
  memcpy(r->expected + 7, r->id, id_len);
  r->threads = threads;
  r->callers = calloc(threads, sizeof(caller_t));
  atomic_init(&r->remaining, threads);
  CHECK(env, napi_create_string_utf8(env, "loadlab-caller", NAPI_AUTO_LENGTH, &name));
  napi_threadsafe_function* targets = NULL;
  uint32_t n = 1;
  if (target_type == napi_function) {
    CHECK(env, napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, NULL, NULL, NULL, call_hook, &r->own));
  } else {
    CHECK(env, napi_get_array_length(env, argv[0], &n));
    targets = calloc(n ? n : 1, sizeof(*targets));
    for (uint32_t i = 0; i < n; i++) {
      napi_value v;
      int32_t slot = -1;
      napi_get_element(env, argv[0], i, &v);
      napi_get_value_int32(env, v, &slot);
      pthread_mutex_lock(&registry_mu);
      targets[i] = slot >= 0 && slot < MAX_REGISTERED ? registry[slot] : NULL;
      pthread_mutex_unlock(&registry_mu);
      if (targets[i] == NULL) {
        free(targets);
        free_run(r);
        napi_throw_range_error(env, NULL, "run: an id that register() did not give, or unregistered");
        return NULL;
      }
    }
  }
  CHECK(env, napi_create_promise(env, &r->deferred, &promise));
  CHECK(env, napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, NULL, NULL, NULL, finish, &r->done));
  for (int i = 0; i < threads; i++) {
    caller_t* c = &r->callers[i];
    c->run = r;
    c->tsfn = r->own ? r->own : targets[i % n];
    c->calls = calls / threads + (i < calls % threads ? 1 : 0);
    c->answer = malloc(r->expected_len + 1);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
  }
  free(targets);
  for (int i = 0; i < threads; i++) pthread_create(&r->callers[i].thread, NULL, caller_main, &r->callers[i]);
  return promise;
}

static napi_value settle(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint64_t token = 0;
  bool lossless = false;
  if (argc < 2 || napi_get_value_bigint_uint64(env, argv[0], &token, &lossless) != napi_ok || token == 0) {
    napi_throw_type_error(env, NULL, "settle(token, answer): expected the token a call was given");
    return NULL;
  }
  caller_t* c = (caller_t*)(uintptr_t)token;
  run_t* r = c->run;
  size_t len = 0;
  napi_valuetype t;
  napi_typeof(env, argv[1], &t);
  if (t != napi_string) {
    atomic_fetch_add(&r->errors, 1);
  } else {
    napi_get_value_string_utf8(env, argv[1], NULL, 0, &len);
    if (len != r->expected_len) {
      atomic_fetch_add(&r->mismatches, 1);
    } else {
      napi_get_value_string_utf8(env, argv[1], c->answer, len + 1, NULL);
      if (memcmp(c->answer, r->expected, len) != 0) atomic_fetch_add(&r->mismatches, 1);
    }
  }
  atomic_fetch_add(&r->answered, 1);
  wake(c);
  return NULL;
}

static void forget(napi_env env, void* data, void* hint) {
  (void)env;
  (void)hint;
  intptr_t slot = (intptr_t)data;
  pthread_mutex_lock(&registry_mu);
  registry[slot] = NULL;
  pthread_mutex_unlock(&registry_mu);
}

static napi_value reg(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value fn, name, out;
  CHECK(env, napi_get_cb_info(env, info, &argc, &fn, NULL, NULL));
  napi_valuetype t;
  CHECK(env, napi_typeof(env, fn, &t));
  if (argc < 1 || t != napi_function) {
    napi_throw_type_error(env, NULL, "register(fn): expected a function");
    return NULL;
  }
  pthread_mutex_lock(&registry_mu);
  intptr_t slot = -1;
  for (int i = 0; i < MAX_REGISTERED && slot < 0; i++) if (registry[i] == NULL) slot = i;
  if (slot >= 0) registry[slot] = (napi_threadsafe_function)1;  // taken while it is created
  pthread_mutex_unlock(&registry_mu);
  if (slot < 0) {
    napi_throw_range_error(env, NULL, "register: 1024 functions registered already");
    return NULL;
  }
  napi_threadsafe_function tsfn;
  CHECK(env, napi_create_string_utf8(env, "loadlab-direct", NAPI_AUTO_LENGTH, &name));
  CHECK(env, napi_create_threadsafe_function(env, fn, NULL, name, 0, 1, (void*)slot, forget, NULL, call_hook, &tsfn));
  CHECK(env, napi_unref_threadsafe_function(env, tsfn));
  pthread_mutex_lock(&registry_mu);
  registry[slot] = tsfn;
  pthread_mutex_unlock(&registry_mu);
  CHECK(env, napi_create_int32(env, (int32_t)slot, &out));
  return out;
}

static napi_value unreg(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value v;
  int32_t slot = -1;
  CHECK(env, napi_get_cb_info(env, info, &argc, &v, NULL, NULL));
  napi_get_value_int32(env, v, &slot);
  if (slot < 0 || slot >= MAX_REGISTERED) return NULL;
  pthread_mutex_lock(&registry_mu);
  napi_threadsafe_function tsfn = registry[slot];
  pthread_mutex_unlock(&registry_mu);
  if (tsfn != NULL) napi_release_threadsafe_function(tsfn, napi_tsfn_release);
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
    { "run", NULL, run, NULL, NULL, NULL, napi_enumerable, NULL },
    { "settle", NULL, settle, NULL, NULL, NULL, napi_enumerable, NULL },
    { "register", NULL, reg, NULL, NULL, NULL, napi_enumerable, NULL },
    { "unregister", NULL, unreg, NULL, NULL, NULL, napi_enumerable, NULL },
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}
