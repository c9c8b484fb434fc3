// SPDX-License-Identifier: GPL-2.0
/*
 * top's help screen lists every key top answers to (the man page's KEYS
 * section lists the same; docsync checks the options, this the keys): each
 * key with an action of its own must appear, by name, in ui_key_help[].
 * The names are this test's own table, not the help's.
 */
#include <curses.h>
#include <string.h>
#include "harness.h"
#include "ui/ui-local.h"
#include <stdio.h>

static const struct {
	int key;
	const char *name;
} names[] = {
    {KEY_UP, "Up"},	  {KEY_DOWN, "Down"},	       {KEY_LEFT, "Left"}, {KEY_RIGHT, "Right"},
    {KEY_PPAGE, "PgUp"},  {KEY_NPAGE, "PgDn"},	       {KEY_HOME, "Home"}, {KEY_END, "End"},
    {KEY_ENTER, "Enter"}, {'\n', "Enter"},	       {'\r', "Enter"},	   {27, "Esc"},
    {KEY_BACKSPACE, "Backspace"},
};

static const char *name_of(int k, char *buf)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].key == k)
			return names[i].name;
	buf[0] = (char)k;
	buf[1] = 0;
	return buf;
}

/* Is word one of the blank-separated words of the help's keys column? */
static bool listed(const char *word)
{
	for (size_t i = 0; i < ui_nkey_help; i++) {
		const char *s = ui_key_help[i].keys;
		size_t n = strlen(word);

		while ((s = strstr(s, word))) {
			bool start = s == ui_key_help[i].keys || s[-1] == ' ';
			bool end = s[n] == 0 || s[n] == ' ';

			if (start && end)
				return true;
			s += n;
		}
	}
	return false;
}

int main(void)
{
	char buf[8], what[64];
	int bound = 0;

	for (int k = 0; k < KEY_MAX; k++) {
		enum ui_action a = ui_keys_action(k);

		if (a == UI_A_REFRESH || a == UI_A_NONE)
			continue; /* "other keys": refresh; KEY_RESIZE */
		bound++;
		snprintf(what, sizeof(what), "help screen lists key '%s'", name_of(k, buf));
		CHECK(listed(name_of(k, buf)), "%s", what);
	}
	CHECK(bound >= 30, "%d keys bound", bound);
	/* The man page's names for the selection keys, which the help lacked. */
	CHECK(listed("Home") && listed("End") && listed("j") && listed("k"), "selection keys");
	return test_summary("test_keys");
}
