#ifndef FIXTUREKIT_CSYSTEM_SHIM_H
#define FIXTUREKIT_CSYSTEM_SHIM_H

// The one place the library needs C outside its C libraries: the code a stage's
// process runs between fork() and exec(). In a process with several threads
// only async-signal-safe calls are allowed there, which Swift code cannot
// promise (its runtime may allocate or take a lock another thread held at the
// fork); and prctl, which makes the reaper, is variadic, which Swift cannot call.

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

// Starts a stage program under a reaper: a child of the caller that makes itself
// a child subreaper (prctl(PR_SET_CHILD_SUBREAPER)), so that the kernel makes it
// the parent of every process below it whose own parent ends (a daemon that
// double-forks and calls setsid included), and waits for all of them.
//
// The reaper, in a process group of its own and ignoring SIGINT, SIGTERM, SIGHUP,
// SIGQUIT and SIGPIPE (only its caller ends it, by ending what is below it), starts the
// program in a second process group, the program's own, with every signal's
// default disposition and an empty signal mask, stdin from `input`, stdout and
// stderr into `output`, no other descriptor, in `directory`.
//
// Through `report` (a pipe's write end) the reaper writes the program's pid (an
// int; minus errno when fork failed), then, when the program ends, its wait
// status (an int). It then reaps whatever is left below it and exits once
// nothing is. When execve fails, the program writes its errno (an int) to
// `exec_error` (a pipe's write end that execve closes when it succeeds).
//
// Returns the reaper's pid, or -1 with errno when fork failed.
static inline pid_t fixturekit_spawn_reaped(const char *path, char *const argv[], char *const envp[], const char *directory,
                                            int input, int output, int report, int exec_error) {
    pid_t reaper = fork();
    if (reaper != 0) return reaper;

    // No handler of the caller's runs here: every signal's default, but those
    // that would end the reaper (SIGPIPE too: its caller may be gone).
    struct sigaction standard = { 0 }, ignore = { 0 };
    standard.sa_handler = SIG_DFL;
    ignore.sa_handler = SIG_IGN;
    for (int number = 1; number < NSIG; number++) sigaction(number, &standard, NULL);
    sigaction(SIGINT, &ignore, NULL);
    sigaction(SIGTERM, &ignore, NULL);
    sigaction(SIGHUP, &ignore, NULL);
    sigaction(SIGQUIT, &ignore, NULL);
    sigaction(SIGPIPE, &ignore, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);
    // Out of the way of 0 to 4 first, which the dup2 calls below fill in.
    int in = fcntl(input, F_DUPFD, 10), out = fcntl(output, F_DUPFD, 10);
    int rep = fcntl(report, F_DUPFD, 10), err = fcntl(exec_error, F_DUPFD, 10);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 || in < 0 || out < 0 || rep < 0 || err < 0
        || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(rep, 3) < 0 || dup3(err, 4, O_CLOEXEC) < 0) {
        int failure = -(errno ? errno : EIO);
        (void)!write(rep >= 0 ? rep : report, &failure, sizeof failure);
        _exit(127);
    }
    closefrom(5);

    pid_t program = fork();
    if (program == 0) {
        close(3);
        setpgid(0, 0);
        for (int number = 1; number < NSIG; number++) sigaction(number, &standard, NULL);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (chdir(directory) == 0) execve(path, argv, envp);
        int failure = errno;
        (void)!write(4, &failure, sizeof failure);
        _exit(127);
    }
    close(4);
    int started = program > 0 ? program : -errno;
    if (program > 0) setpgid(program, program);
    (void)!write(3, &started, sizeof started);
    for (;;) {
        int status = 0;
        pid_t ended = waitpid(-1, &status, 0);
        if (ended < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (ended == program) (void)!write(3, &status, sizeof status);
    }
    _exit(0);
}

#endif
