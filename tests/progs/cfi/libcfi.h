/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LIBCFI_H
#define _LIBCFI_H
void cfi_lib_1(void);
void cfi_lib_2(void);
void cfi_lib_3(void);
void cfi_lib_4(void);
void cfi_lib_5(void);
void cfi_lib_6(void);
#endif
