# docs/man/man.mk - the man pages, included by the top Makefile: make man -> $(O)/man/.
# cygtrace(1), cygtrace-COMMAND(1) for every command and cygtrace-runtime(3), each written by
# docs/man/mkman.sh from docs/man/PAGE.txt and, for a command, from the built program's own
# --help: the pages cannot disagree with it (tests/e2e/man.sh checks every option and command).

MAN_COMMANDS := tree report diff export info dump pull arm live record wrap $(if $(wildcard host/cmd/cmd_graph.c),graph)
MAN1_PAGES := $(O)/man/cygtrace.1 $(foreach c,$(MAN_COMMANDS),$(O)/man/cygtrace-$(c).1)
MAN3_PAGES := $(O)/man/cygtrace-runtime.3

.PHONY: man
man: $(MAN1_PAGES) $(MAN3_PAGES)
all: man

$(O)/man/%.1: docs/man/%.txt docs/man/mkman.sh $(O)/cygtrace
	@mkdir -p $(dir $@)
	$(call say,MAN,$@)docs/man/mkman.sh $(O)/cygtrace $* $@

$(O)/man/%.3: docs/man/%.txt docs/man/mkman.sh $(O)/cygtrace
	@mkdir -p $(dir $@)
	$(call say,MAN,$@)docs/man/mkman.sh $(O)/cygtrace $* $@
