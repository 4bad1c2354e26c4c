/*
 * mm_number.c — decimal text to double and int64 with every case handled:
 * the careful path of the reader (mm_entry.c, the banner's size line).
 * The common case converts without strtod, correctly rounded
 * (mm_fast_scale in mm_fast.h says why that is exact); more than 19
 * significant digits, exponents beyond its range, the few products it
 * cannot round, subnormals, hex floats and inf/nan text go to strtod.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_fast.h"

/* The table of mm_fast.h's Eisel-Lemire step, written by this Python
 * (the construction of the paper's and fast_float's tables):
 *   for q in range(-64, 65):
 *       if q >= 0: c = 5**q; shift c left or right until 2**127 <= c < 2**128
 *       else:
 *           p = 5**-q; z = (p - 1).bit_length()
 *           c = 2**(z + 127) // p + 1 if q >= -27 else 2**(2*z + 128) // p + 1
 *           shift c right until c < 2**128
 *       print(c >> 64, c & (2**64 - 1))
 * tests/test_mm_read.c checks the conversion against strtod. */
const uint64_t mm_pow5_128[MM_POW5_MAX - MM_POW5_MIN + 1][2] = {
    {0xa87fea27a539e9a5ull, 0x3f2398d747b36224ull}, /* 5^-64 */
    {0xd29fe4b18e88640eull, 0x8eec7f0d19a03aadull}, /* 5^-63 */
    {0x83a3eeeef9153e89ull, 0x1953cf68300424acull}, /* 5^-62 */
    {0xa48ceaaab75a8e2bull, 0x5fa8c3423c052dd7ull}, /* 5^-61 */
    {0xcdb02555653131b6ull, 0x3792f412cb06794dull}, /* 5^-60 */
    {0x808e17555f3ebf11ull, 0xe2bbd88bbee40bd0ull}, /* 5^-59 */
    {0xa0b19d2ab70e6ed6ull, 0x5b6aceaeae9d0ec4ull}, /* 5^-58 */
    {0xc8de047564d20a8bull, 0xf245825a5a445275ull}, /* 5^-57 */
    {0xfb158592be068d2eull, 0xeed6e2f0f0d56712ull}, /* 5^-56 */
    {0x9ced737bb6c4183dull, 0x55464dd69685606bull}, /* 5^-55 */
    {0xc428d05aa4751e4cull, 0xaa97e14c3c26b886ull}, /* 5^-54 */
    {0xf53304714d9265dfull, 0xd53dd99f4b3066a8ull}, /* 5^-53 */
    {0x993fe2c6d07b7fabull, 0xe546a8038efe4029ull}, /* 5^-52 */
    {0xbf8fdb78849a5f96ull, 0xde98520472bdd033ull}, /* 5^-51 */
    {0xef73d256a5c0f77cull, 0x963e66858f6d4440ull}, /* 5^-50 */
    {0x95a8637627989aadull, 0xdde7001379a44aa8ull}, /* 5^-49 */
    {0xbb127c53b17ec159ull, 0x5560c018580d5d52ull}, /* 5^-48 */
    {0xe9d71b689dde71afull, 0xaab8f01e6e10b4a6ull}, /* 5^-47 */
    {0x9226712162ab070dull, 0xcab3961304ca70e8ull}, /* 5^-46 */
    {0xb6b00d69bb55c8d1ull, 0x3d607b97c5fd0d22ull}, /* 5^-45 */
    {0xe45c10c42a2b3b05ull, 0x8cb89a7db77c506aull}, /* 5^-44 */
    {0x8eb98a7a9a5b04e3ull, 0x77f3608e92adb242ull}, /* 5^-43 */
    {0xb267ed1940f1c61cull, 0x55f038b237591ed3ull}, /* 5^-42 */
    {0xdf01e85f912e37a3ull, 0x6b6c46dec52f6688ull}, /* 5^-41 */
    {0x8b61313bbabce2c6ull, 0x2323ac4b3b3da015ull}, /* 5^-40 */
    {0xae397d8aa96c1b77ull, 0xabec975e0a0d081aull}, /* 5^-39 */
    {0xd9c7dced53c72255ull, 0x96e7bd358c904a21ull}, /* 5^-38 */
    {0x881cea14545c7575ull, 0x7e50d64177da2e54ull}, /* 5^-37 */
    {0xaa242499697392d2ull, 0xdde50bd1d5d0b9e9ull}, /* 5^-36 */
    {0xd4ad2dbfc3d07787ull, 0x955e4ec64b44e864ull}, /* 5^-35 */
    {0x84ec3c97da624ab4ull, 0xbd5af13bef0b113eull}, /* 5^-34 */
    {0xa6274bbdd0fadd61ull, 0xecb1ad8aeacdd58eull}, /* 5^-33 */
    {0xcfb11ead453994baull, 0x67de18eda5814af2ull}, /* 5^-32 */
    {0x81ceb32c4b43fcf4ull, 0x80eacf948770ced7ull}, /* 5^-31 */
    {0xa2425ff75e14fc31ull, 0xa1258379a94d028dull}, /* 5^-30 */
    {0xcad2f7f5359a3b3eull, 0x096ee45813a04330ull}, /* 5^-29 */
    {0xfd87b5f28300ca0dull, 0x8bca9d6e188853fcull}, /* 5^-28 */
    {0x9e74d1b791e07e48ull, 0x775ea264cf55347eull}, /* 5^-27 */
    {0xc612062576589ddaull, 0x95364afe032a819eull}, /* 5^-26 */
    {0xf79687aed3eec551ull, 0x3a83ddbd83f52205ull}, /* 5^-25 */
    {0x9abe14cd44753b52ull, 0xc4926a9672793543ull}, /* 5^-24 */
    {0xc16d9a0095928a27ull, 0x75b7053c0f178294ull}, /* 5^-23 */
    {0xf1c90080baf72cb1ull, 0x5324c68b12dd6339ull}, /* 5^-22 */
    {0x971da05074da7beeull, 0xd3f6fc16ebca5e04ull}, /* 5^-21 */
    {0xbce5086492111aeaull, 0x88f4bb1ca6bcf585ull}, /* 5^-20 */
    {0xec1e4a7db69561a5ull, 0x2b31e9e3d06c32e6ull}, /* 5^-19 */
    {0x9392ee8e921d5d07ull, 0x3aff322e62439fd0ull}, /* 5^-18 */
    {0xb877aa3236a4b449ull, 0x09befeb9fad487c3ull}, /* 5^-17 */
    {0xe69594bec44de15bull, 0x4c2ebe687989a9b4ull}, /* 5^-16 */
    {0x901d7cf73ab0acd9ull, 0x0f9d37014bf60a11ull}, /* 5^-15 */
    {0xb424dc35095cd80full, 0x538484c19ef38c95ull}, /* 5^-14 */
    {0xe12e13424bb40e13ull, 0x2865a5f206b06fbaull}, /* 5^-13 */
    {0x8cbccc096f5088cbull, 0xf93f87b7442e45d4ull}, /* 5^-12 */
    {0xafebff0bcb24aafeull, 0xf78f69a51539d749ull}, /* 5^-11 */
    {0xdbe6fecebdedd5beull, 0xb573440e5a884d1cull}, /* 5^-10 */
    {0x89705f4136b4a597ull, 0x31680a88f8953031ull}, /* 5^-9 */
    {0xabcc77118461cefcull, 0xfdc20d2b36ba7c3eull}, /* 5^-8 */
    {0xd6bf94d5e57a42bcull, 0x3d32907604691b4dull}, /* 5^-7 */
    {0x8637bd05af6c69b5ull, 0xa63f9a49c2c1b110ull}, /* 5^-6 */
    {0xa7c5ac471b478423ull, 0x0fcf80dc33721d54ull}, /* 5^-5 */
    {0xd1b71758e219652bull, 0xd3c36113404ea4a9ull}, /* 5^-4 */
    {0x83126e978d4fdf3bull, 0x645a1cac083126eaull}, /* 5^-3 */
    {0xa3d70a3d70a3d70aull, 0x3d70a3d70a3d70a4ull}, /* 5^-2 */
    {0xccccccccccccccccull, 0xcccccccccccccccdull}, /* 5^-1 */
    {0x8000000000000000ull, 0x0000000000000000ull}, /* 5^0 */
    {0xa000000000000000ull, 0x0000000000000000ull}, /* 5^1 */
    {0xc800000000000000ull, 0x0000000000000000ull}, /* 5^2 */
    {0xfa00000000000000ull, 0x0000000000000000ull}, /* 5^3 */
    {0x9c40000000000000ull, 0x0000000000000000ull}, /* 5^4 */
    {0xc350000000000000ull, 0x0000000000000000ull}, /* 5^5 */
    {0xf424000000000000ull, 0x0000000000000000ull}, /* 5^6 */
    {0x9896800000000000ull, 0x0000000000000000ull}, /* 5^7 */
    {0xbebc200000000000ull, 0x0000000000000000ull}, /* 5^8 */
    {0xee6b280000000000ull, 0x0000000000000000ull}, /* 5^9 */
    {0x9502f90000000000ull, 0x0000000000000000ull}, /* 5^10 */
    {0xba43b74000000000ull, 0x0000000000000000ull}, /* 5^11 */
    {0xe8d4a51000000000ull, 0x0000000000000000ull}, /* 5^12 */
    {0x9184e72a00000000ull, 0x0000000000000000ull}, /* 5^13 */
    {0xb5e620f480000000ull, 0x0000000000000000ull}, /* 5^14 */
    {0xe35fa931a0000000ull, 0x0000000000000000ull}, /* 5^15 */
    {0x8e1bc9bf04000000ull, 0x0000000000000000ull}, /* 5^16 */
    {0xb1a2bc2ec5000000ull, 0x0000000000000000ull}, /* 5^17 */
    {0xde0b6b3a76400000ull, 0x0000000000000000ull}, /* 5^18 */
    {0x8ac7230489e80000ull, 0x0000000000000000ull}, /* 5^19 */
    {0xad78ebc5ac620000ull, 0x0000000000000000ull}, /* 5^20 */
    {0xd8d726b7177a8000ull, 0x0000000000000000ull}, /* 5^21 */
    {0x878678326eac9000ull, 0x0000000000000000ull}, /* 5^22 */
    {0xa968163f0a57b400ull, 0x0000000000000000ull}, /* 5^23 */
    {0xd3c21bcecceda100ull, 0x0000000000000000ull}, /* 5^24 */
    {0x84595161401484a0ull, 0x0000000000000000ull}, /* 5^25 */
    {0xa56fa5b99019a5c8ull, 0x0000000000000000ull}, /* 5^26 */
    {0xcecb8f27f4200f3aull, 0x0000000000000000ull}, /* 5^27 */
    {0x813f3978f8940984ull, 0x4000000000000000ull}, /* 5^28 */
    {0xa18f07d736b90be5ull, 0x5000000000000000ull}, /* 5^29 */
    {0xc9f2c9cd04674edeull, 0xa400000000000000ull}, /* 5^30 */
    {0xfc6f7c4045812296ull, 0x4d00000000000000ull}, /* 5^31 */
    {0x9dc5ada82b70b59dull, 0xf020000000000000ull}, /* 5^32 */
    {0xc5371912364ce305ull, 0x6c28000000000000ull}, /* 5^33 */
    {0xf684df56c3e01bc6ull, 0xc732000000000000ull}, /* 5^34 */
    {0x9a130b963a6c115cull, 0x3c7f400000000000ull}, /* 5^35 */
    {0xc097ce7bc90715b3ull, 0x4b9f100000000000ull}, /* 5^36 */
    {0xf0bdc21abb48db20ull, 0x1e86d40000000000ull}, /* 5^37 */
    {0x96769950b50d88f4ull, 0x1314448000000000ull}, /* 5^38 */
    {0xbc143fa4e250eb31ull, 0x17d955a000000000ull}, /* 5^39 */
    {0xeb194f8e1ae525fdull, 0x5dcfab0800000000ull}, /* 5^40 */
    {0x92efd1b8d0cf37beull, 0x5aa1cae500000000ull}, /* 5^41 */
    {0xb7abc627050305adull, 0xf14a3d9e40000000ull}, /* 5^42 */
    {0xe596b7b0c643c719ull, 0x6d9ccd05d0000000ull}, /* 5^43 */
    {0x8f7e32ce7bea5c6full, 0xe4820023a2000000ull}, /* 5^44 */
    {0xb35dbf821ae4f38bull, 0xdda2802c8a800000ull}, /* 5^45 */
    {0xe0352f62a19e306eull, 0xd50b2037ad200000ull}, /* 5^46 */
    {0x8c213d9da502de45ull, 0x4526f422cc340000ull}, /* 5^47 */
    {0xaf298d050e4395d6ull, 0x9670b12b7f410000ull}, /* 5^48 */
    {0xdaf3f04651d47b4cull, 0x3c0cdd765f114000ull}, /* 5^49 */
    {0x88d8762bf324cd0full, 0xa5880a69fb6ac800ull}, /* 5^50 */
    {0xab0e93b6efee0053ull, 0x8eea0d047a457a00ull}, /* 5^51 */
    {0xd5d238a4abe98068ull, 0x72a4904598d6d880ull}, /* 5^52 */
    {0x85a36366eb71f041ull, 0x47a6da2b7f864750ull}, /* 5^53 */
    {0xa70c3c40a64e6c51ull, 0x999090b65f67d924ull}, /* 5^54 */
    {0xd0cf4b50cfe20765ull, 0xfff4b4e3f741cf6dull}, /* 5^55 */
    {0x82818f1281ed449full, 0xbff8f10e7a8921a4ull}, /* 5^56 */
    {0xa321f2d7226895c7ull, 0xaff72d52192b6a0dull}, /* 5^57 */
    {0xcbea6f8ceb02bb39ull, 0x9bf4f8a69f764490ull}, /* 5^58 */
    {0xfee50b7025c36a08ull, 0x02f236d04753d5b4ull}, /* 5^59 */
    {0x9f4f2726179a2245ull, 0x01d762422c946590ull}, /* 5^60 */
    {0xc722f0ef9d80aad6ull, 0x424d3ad2b7b97ef5ull}, /* 5^61 */
    {0xf8ebad2b84e0d58bull, 0xd2e0898765a7deb2ull}, /* 5^62 */
    {0x9b934c3b330c8577ull, 0x63cc55f49f88eb2full}, /* 5^63 */
    {0xc2781f49ffcfa6d5ull, 0x3cbf6b71c76b25fbull}, /* 5^64 */
};

/* strtod on [p, end): copies the token so the text need not be terminated. */
static const char *strtod_path(const char *p, const char *end, double *v, int *range)
{
    char buf[512];
    const char *q = p;
    while (q < end && (size_t)(q - p) < sizeof buf - 1 && *q != ' ' && *q != '\t' &&
           *q != '\n' && *q != '\r')
        q++;
    size_t n = (size_t)(q - p);
    memcpy(buf, p, n);
    buf[n] = 0;
    char *stop;
    errno = 0;
    double x = strtod(buf, &stop);
    if (stop == buf)
        return NULL;
    /* 1: overflow; 2: inf or nan written out (benchmarks need finite values) */
    *range = errno == ERANGE && fabs(x) > 1.0 ? 1 : !isfinite(x) ? 2 : 0;
    *v = x;
    return p + (stop - buf);
}

/* Digits at p into m (the first 19 significant ones; later nonzero ones
 * set *dropped). *e counts the digits not kept (integer part) or kept
 * (fraction part, frac = 1) as powers of ten. */
static const char *scan_digits(const char *p, const char *end, int frac, uint64_t *m,
                               int *sig, int *e, int *dropped)
{
    for (; p < end && (unsigned)(*p - '0') < 10; p++) {
        if (*sig < 19) {
            *m = *m * 10 + (uint64_t)(*p - '0');
            *sig += (*m != 0);          /* leading zeros are not significant */
            *e -= frac;
        } else {
            *dropped |= (*p != '0');
            *e += !frac && *e < 1000000;
        }
    }
    return p;
}

/* An exponent "e[+-]ddd" at p; NULL when the digits are missing. */
static const char *scan_exponent(const char *p, const char *end, int *e)
{
    int neg = 0, x = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = (*p++ == '-');
    const char *digits = p;
    for (; p < end && (unsigned)(*p - '0') < 10; p++)
        if (x < 1000000)
            x = x * 10 + (*p - '0');
    if (p == digits)
        return NULL;
    *e += neg ? -x : x;
    return p;
}

const char *sp_mm_parse_double(const char *p, const char *end, double *v, int *range)
{
    const char *start = p;
    int neg = 0, sig = 0, e = 0, dropped = 0;
    uint64_t m = 0;
    *range = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = (*p++ == '-');
    const char *digits = p;
    p = scan_digits(p, end, 0, &m, &sig, &e, &dropped);
    int any = p > digits;
    if (p < end && *p == '.') {
        const char *q = scan_digits(p + 1, end, 1, &m, &sig, &e, &dropped);
        any |= q > p + 1;
        p = q;
    }
    if (!any)
        return strtod_path(start, end, v, range);     /* inf, nan, or no number */
    if (p < end && (*p == 'x' || *p == 'X'))
        return strtod_path(start, end, v, range);     /* hexadecimal float */
    if (p < end && (*p == 'e' || *p == 'E') && !(p = scan_exponent(p + 1, end, &e)))
        return NULL;
    double d;
    if (dropped || !mm_fast_scale(m, e, &d))
        return strtod_path(start, end, v, range);
    *v = neg ? -d : d;
    return p;
}

const char *sp_mm_parse_int(const char *p, const char *end, int64_t *v, int *range)
{
    int neg = 0;
    *range = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = (*p++ == '-');
    const char *digits = p;
    uint64_t x = 0;
    for (; p < end && (unsigned)(*p - '0') < 10; p++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            *range = 1;                 /* keeps scanning to the token's end */
        else
            x = x * 10 + d;
    }
    if (p == digits)
        return NULL;
    if (x > (uint64_t)INT64_MAX + (uint64_t)neg)
        *range = 1;
    *v = neg ? (int64_t)(0 - x) : (int64_t)x;
    return p;
}
