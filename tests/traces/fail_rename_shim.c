/* Preloaded into a tool under test (LD_PRELOAD): rename() onto the path in
 * VP_TEST_FAIL_RENAME_TO fails with EIO, every other rename goes to the C
 * library. It makes "a later rename fails after earlier ones succeeded"
 * happen at a chosen output of a real run, which no file-system setup can do
 * reliably once the tool has checked its destinations. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rename(const char* from, const char* to) {
  const char* fail = getenv("VP_TEST_FAIL_RENAME_TO");
  if (fail && to && strcmp(to, fail) == 0) {
    errno = EIO;
    return -1;
  }
  int (*real)(const char*, const char*) = (int (*)(const char*, const char*))dlsym(RTLD_NEXT, "rename");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  return real(from, to);
}
