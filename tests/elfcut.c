/* SPDX-License-Identifier: GPL-3.0-or-later */
/* elfcut.c - for tests/e2e/trigger_linux.sh. elfcut IN OUT NAME: a copy of the shared library
 * IN (64-bit ELF) that the dynamic linker loads and runs as before, but whose last PT_LOAD runs 128 KiB past the end of the file, with the name of
 * its symbol NAME (one nobody looks up) moved there, and no section headers. The dynamic
 * string table is copied into that segment (over the bytes of .symtab and the like, which
 * nothing reads once the section headers are gone), so that one segment holds both. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *img;
static long size;

static Elf64_Phdr *ph(int i)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    return (Elf64_Phdr *)(img + eh->e_phoff + (size_t)i * eh->e_phentsize);
}

/* The file offset of a link-time address, or -1. */
static long off_of(Elf64_Addr a)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph(i)->p_type == PT_LOAD && a >= ph(i)->p_vaddr &&
            a < ph(i)->p_vaddr + ph(i)->p_filesz)
            return (long)(a - ph(i)->p_vaddr + ph(i)->p_offset);
    return -1;
}

int main(int argc, char **argv)
{
    FILE *f;
    Elf64_Ehdr *eh;
    Elf64_Phdr *last = NULL, *dynph = NULL;
    Elf64_Dyn *dyn;
    Elf64_Addr strtab = 0, symtab = 0, name_at;
    Elf64_Xword *strsz = NULL, ext, old_memsz;
    int found = 0;

    if (argc != 4 || !(f = fopen(argv[1], "rb")))
        return 2;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    rewind(f);
    img = malloc((size_t)size);
    if (fread(img, 1, (size_t)size, f) != (size_t)size)
        return 2;
    fclose(f);
    eh = (Elf64_Ehdr *)img;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
        return 3;
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph(i)->p_type == PT_LOAD && (!last || ph(i)->p_offset > last->p_offset))
            last = ph(i);
        if (ph(i)->p_type == PT_DYNAMIC)
            dynph = ph(i);
    }
    if (!last || !dynph)
        return 3;
    /* Past the page that holds the end of the file: a page with no byte of it. */
    ext = ((Elf64_Xword)(size - (long)last->p_offset) + 0xffff) & ~(Elf64_Xword)0xffff;
    name_at = last->p_vaddr + ext + 0x10000;
    old_memsz = last->p_memsz;
    last->p_filesz = last->p_memsz = ext + 0x20000;
    dyn = (Elf64_Dyn *)(img + dynph->p_offset);
    for (; dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_STRTAB)
            strtab = dyn->d_un.d_ptr;
        if (dyn->d_tag == DT_SYMTAB)
            symtab = dyn->d_un.d_ptr;
        if (dyn->d_tag == DT_STRSZ)
            strsz = &dyn->d_un.d_val;
    }
    if (!strtab || !symtab || !strsz || off_of(strtab) < 0 || off_of(symtab) < 0 ||
        symtab >= strtab)
        return 3;
    for (Elf64_Sym *s = (Elf64_Sym *)(img + off_of(symtab));
         (unsigned char *)(s + 1) <= img + off_of(strtab); s++)
        if (!strcmp((char *)img + off_of(strtab) + s->st_name, argv[3])) {
            s->st_name = (Elf64_Word)(name_at - strtab);
            found = 1;
        }
    if (!found)
        return 4;
    {
        /* The copy: past the segment's old end, .bss included, in the file. */
        Elf64_Addr at = (last->p_vaddr + old_memsz + 15) & ~(Elf64_Addr)15;
        long to = (long)(at - last->p_vaddr + last->p_offset);

        if (to + (long)*strsz > size)
            return 5;
        memcpy(img + to, img + off_of(strtab), *strsz);
        for (dyn = (Elf64_Dyn *)(img + dynph->p_offset); dyn->d_tag != DT_NULL; dyn++)
            if (dyn->d_tag == DT_STRTAB)
                dyn->d_un.d_ptr = at;
        for (Elf64_Sym *s = (Elf64_Sym *)(img + off_of(symtab));
             (unsigned char *)(s + 1) <= img + off_of(strtab); s++)
            if (s->st_name == (Elf64_Word)(name_at - strtab))
                s->st_name = (Elf64_Word)(name_at - at);
        *strsz = name_at - at + 4096;
    }
    eh->e_shoff = 0;
    eh->e_shnum = 0;
    eh->e_shentsize = 0;
    eh->e_shstrndx = 0;
    if (!(f = fopen(argv[2], "wb")) || fwrite(img, 1, (size_t)size, f) != (size_t)size ||
        fclose(f))
        return 2;
    return 0;
}
