/* runone: run one command, print its whole-process cost on one line.
 *
 *   runone [-o OUT] [-e ERR] -- command [args...]
 *
 * The child reads /dev/null and writes stdout to OUT and stderr to ERR (both default
 * /dev/null; ERR is appended to). Printed on stdout:
 *   <wall s> <user s> <sys s> <peak RSS KiB> <exit status, or 128+signal>
 * wall is CLOCK_MONOTONIC from fork to wait4; the rest is the kernel's rusage of the child. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  const char *out = "/dev/null", *err = "/dev/null";
  int i = 1;
  while (i < argc && strcmp(argv[i], "--") != 0) {
    if (i + 1 < argc && !strcmp(argv[i], "-o")) out = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "-e")) err = argv[++i];
    else { fprintf(stderr, "runone: bad option %s\n", argv[i]); return 2; }
    i++;
  }
  if (++i >= argc) { fprintf(stderr, "usage: runone [-o OUT] [-e ERR] -- cmd [args]\n"); return 2; }
  int fin = open("/dev/null", O_RDONLY);
  int fout = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int ferr = open(err, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fin < 0 || fout < 0 || ferr < 0) { perror("runone: open"); return 125; }
  double t0 = seconds();
  pid_t pid = fork();
  if (pid < 0) { perror("runone: fork"); return 125; }
  if (pid == 0) {
    dup2(fin, 0); dup2(fout, 1); dup2(ferr, 2);
    execvp(argv[i], argv + i);
    _exit(127);
  }
  int st = 0;
  struct rusage ru = {0};
  while (wait4(pid, &st, 0, &ru) < 0) {}
  double wall = seconds() - t0;
  printf("%.6f %.6f %.6f %ld %d\n", wall,
         (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6,
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6, ru.ru_maxrss,
         WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  return 0;
}
