/* replay: a main() for a harness built without libFuzzer (any C compiler),
 * so its inputs can be replayed under valgrind, which sees what the
 * sanitizers do not (reads of uninitialised memory). Each argument is a
 * file, or a directory whose files are all replayed; exit 0 when every
 * input ran, 2 when one could not be read. A failing check aborts.
 *
 *   cc -g -I. fuzz/replay.c fuzz/diff-fuzzer.c json.c hash.c -lbearssl
 *   valgrind --error-exitcode=1 ./a.out fuzz/regress corpus/ */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		perror(path);
		return 0;
	}
	do {
		if (len == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 4096))) {
			perror("replay");
			exit(2);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		perror(path);
		fclose(f);
		free(buf);
		return 0;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 1;
}

int main(int argc, char **argv)
{
	size_t runs = 0;
	int ok = 1;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *e;
		DIR *d;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (!(d = opendir(argv[i]))) {
				perror(argv[i]);
				ok = 0;
				continue;
			}
			while ((e = readdir(d))) {
				char path[4096];

				if (e->d_name[0] == '.')
					continue;
				snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
				ok &= replay_file(path);
				runs++;
			}
			closedir(d);
		} else {
			ok &= replay_file(argv[i]);
			runs++;
		}
	}
	fprintf(stderr, "replay: %zu inputs\n", runs);
	return ok ? 0 : 2;
}
