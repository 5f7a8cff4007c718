// 501 buffers, more than min-cost-flow's size limit (500): plan-arena falls back.
func.func @many(%v: f32) {
  %c0 = arith.constant 0 : index
  %a0 = memref.alloc() : memref<16xf32>
  memref.store %v, %a0[%c0] : memref<16xf32>
  %a1 = memref.alloc() : memref<16xf32>
  memref.store %v, %a1[%c0] : memref<16xf32>
  memref.dealloc %a0 : memref<16xf32>
  %a2 = memref.alloc() : memref<16xf32>
  memref.store %v, %a2[%c0] : memref<16xf32>
  memref.dealloc %a1 : memref<16xf32>
  %a3 = memref.alloc() : memref<16xf32>
  memref.store %v, %a3[%c0] : memref<16xf32>
  memref.dealloc %a2 : memref<16xf32>
  %a4 = memref.alloc() : memref<16xf32>
  memref.store %v, %a4[%c0] : memref<16xf32>
  memref.dealloc %a3 : memref<16xf32>
  %a5 = memref.alloc() : memref<16xf32>
  memref.store %v, %a5[%c0] : memref<16xf32>
  memref.dealloc %a4 : memref<16xf32>
  %a6 = memref.alloc() : memref<16xf32>
  memref.store %v, %a6[%c0] : memref<16xf32>
  memref.dealloc %a5 : memref<16xf32>
  %a7 = memref.alloc() : memref<16xf32>
  memref.store %v, %a7[%c0] : memref<16xf32>
  memref.dealloc %a6 : memref<16xf32>
  %a8 = memref.alloc() : memref<16xf32>
  memref.store %v, %a8[%c0] : memref<16xf32>
  memref.dealloc %a7 : memref<16xf32>
  %a9 = memref.alloc() : memref<16xf32>
  memref.store %v, %a9[%c0] : memref<16xf32>
  memref.dealloc %a8 : memref<16xf32>
  %a10 = memref.alloc() : memref<16xf32>
  memref.store %v, %a10[%c0] : memref<16xf32>
  memref.dealloc %a9 : memref<16xf32>
  %a11 = memref.alloc() : memref<16xf32>
  memref.store %v, %a11[%c0] : memref<16xf32>
  memref.dealloc %a10 : memref<16xf32>
  %a12 = memref.alloc() : memref<16xf32>
  memref.store %v, %a12[%c0] : memref<16xf32>
  memref.dealloc %a11 : memref<16xf32>
  %a13 = memref.alloc() : memref<16xf32>
  memref.store %v, %a13[%c0] : memref<16xf32>
  memref.dealloc %a12 : memref<16xf32>
  %a14 = memref.alloc() : memref<16xf32>
  memref.store %v, %a14[%c0] : memref<16xf32>
  memref.dealloc %a13 : memref<16xf32>
  %a15 = memref.alloc() : memref<16xf32>
  memref.store %v, %a15[%c0] : memref<16xf32>
  memref.dealloc %a14 : memref<16xf32>
  %a16 = memref.alloc() : memref<16xf32>
  memref.store %v, %a16[%c0] : memref<16xf32>
  memref.dealloc %a15 : memref<16xf32>
  %a17 = memref.alloc() : memref<16xf32>
  memref.store %v, %a17[%c0] : memref<16xf32>
  memref.dealloc %a16 : memref<16xf32>
  %a18 = memref.alloc() : memref<16xf32>
  memref.store %v, %a18[%c0] : memref<16xf32>
  memref.dealloc %a17 : memref<16xf32>
  %a19 = memref.alloc() : memref<16xf32>
  memref.store %v, %a19[%c0] : memref<16xf32>
  memref.dealloc %a18 : memref<16xf32>
  %a20 = memref.alloc() : memref<16xf32>
  memref.store %v, %a20[%c0] : memref<16xf32>
  memref.dealloc %a19 : memref<16xf32>
  %a21 = memref.alloc() : memref<16xf32>
  memref.store %v, %a21[%c0] : memref<16xf32>
  memref.dealloc %a20 : memref<16xf32>
  %a22 = memref.alloc() : memref<16xf32>
  memref.store %v, %a22[%c0] : memref<16xf32>
  memref.dealloc %a21 : memref<16xf32>
  %a23 = memref.alloc() : memref<16xf32>
  memref.store %v, %a23[%c0] : memref<16xf32>
  memref.dealloc %a22 : memref<16xf32>
  %a24 = memref.alloc() : memref<16xf32>
  memref.store %v, %a24[%c0] : memref<16xf32>
  memref.dealloc %a23 : memref<16xf32>
  %a25 = memref.alloc() : memref<16xf32>
  memref.store %v, %a25[%c0] : memref<16xf32>
  memref.dealloc %a24 : memref<16xf32>
  %a26 = memref.alloc() : memref<16xf32>
  memref.store %v, %a26[%c0] : memref<16xf32>
  memref.dealloc %a25 : memref<16xf32>
  %a27 = memref.alloc() : memref<16xf32>
  memref.store %v, %a27[%c0] : memref<16xf32>
  memref.dealloc %a26 : memref<16xf32>
  %a28 = memref.alloc() : memref<16xf32>
  memref.store %v, %a28[%c0] : memref<16xf32>
  memref.dealloc %a27 : memref<16xf32>
  %a29 = memref.alloc() : memref<16xf32>
  memref.store %v, %a29[%c0] : memref<16xf32>
  memref.dealloc %a28 : memref<16xf32>
  %a30 = memref.alloc() : memref<16xf32>
  memref.store %v, %a30[%c0] : memref<16xf32>
  memref.dealloc %a29 : memref<16xf32>
  %a31 = memref.alloc() : memref<16xf32>
  memref.store %v, %a31[%c0] : memref<16xf32>
  memref.dealloc %a30 : memref<16xf32>
  %a32 = memref.alloc() : memref<16xf32>
  memref.store %v, %a32[%c0] : memref<16xf32>
  memref.dealloc %a31 : memref<16xf32>
  %a33 = memref.alloc() : memref<16xf32>
  memref.store %v, %a33[%c0] : memref<16xf32>
  memref.dealloc %a32 : memref<16xf32>
  %a34 = memref.alloc() : memref<16xf32>
  memref.store %v, %a34[%c0] : memref<16xf32>
  memref.dealloc %a33 : memref<16xf32>
  %a35 = memref.alloc() : memref<16xf32>
  memref.store %v, %a35[%c0] : memref<16xf32>
  memref.dealloc %a34 : memref<16xf32>
  %a36 = memref.alloc() : memref<16xf32>
  memref.store %v, %a36[%c0] : memref<16xf32>
  memref.dealloc %a35 : memref<16xf32>
  %a37 = memref.alloc() : memref<16xf32>
  memref.store %v, %a37[%c0] : memref<16xf32>
  memref.dealloc %a36 : memref<16xf32>
  %a38 = memref.alloc() : memref<16xf32>
  memref.store %v, %a38[%c0] : memref<16xf32>
  memref.dealloc %a37 : memref<16xf32>
  %a39 = memref.alloc() : memref<16xf32>
  memref.store %v, %a39[%c0] : memref<16xf32>
  memref.dealloc %a38 : memref<16xf32>
  %a40 = memref.alloc() : memref<16xf32>
  memref.store %v, %a40[%c0] : memref<16xf32>
  memref.dealloc %a39 : memref<16xf32>
  %a41 = memref.alloc() : memref<16xf32>
  memref.store %v, %a41[%c0] : memref<16xf32>
  memref.dealloc %a40 : memref<16xf32>
  %a42 = memref.alloc() : memref<16xf32>
  memref.store %v, %a42[%c0] : memref<16xf32>
  memref.dealloc %a41 : memref<16xf32>
  %a43 = memref.alloc() : memref<16xf32>
  memref.store %v, %a43[%c0] : memref<16xf32>
  memref.dealloc %a42 : memref<16xf32>
  %a44 = memref.alloc() : memref<16xf32>
  memref.store %v, %a44[%c0] : memref<16xf32>
  memref.dealloc %a43 : memref<16xf32>
  %a45 = memref.alloc() : memref<16xf32>
  memref.store %v, %a45[%c0] : memref<16xf32>
  memref.dealloc %a44 : memref<16xf32>
  %a46 = memref.alloc() : memref<16xf32>
  memref.store %v, %a46[%c0] : memref<16xf32>
  memref.dealloc %a45 : memref<16xf32>
  %a47 = memref.alloc() : memref<16xf32>
  memref.store %v, %a47[%c0] : memref<16xf32>
  memref.dealloc %a46 : memref<16xf32>
  %a48 = memref.alloc() : memref<16xf32>
  memref.store %v, %a48[%c0] : memref<16xf32>
  memref.dealloc %a47 : memref<16xf32>
  %a49 = memref.alloc() : memref<16xf32>
  memref.store %v, %a49[%c0] : memref<16xf32>
  memref.dealloc %a48 : memref<16xf32>
  %a50 = memref.alloc() : memref<16xf32>
  memref.store %v, %a50[%c0] : memref<16xf32>
  memref.dealloc %a49 : memref<16xf32>
  %a51 = memref.alloc() : memref<16xf32>
  memref.store %v, %a51[%c0] : memref<16xf32>
  memref.dealloc %a50 : memref<16xf32>
  %a52 = memref.alloc() : memref<16xf32>
  memref.store %v, %a52[%c0] : memref<16xf32>
  memref.dealloc %a51 : memref<16xf32>
  %a53 = memref.alloc() : memref<16xf32>
  memref.store %v, %a53[%c0] : memref<16xf32>
  memref.dealloc %a52 : memref<16xf32>
  %a54 = memref.alloc() : memref<16xf32>
  memref.store %v, %a54[%c0] : memref<16xf32>
  memref.dealloc %a53 : memref<16xf32>
  %a55 = memref.alloc() : memref<16xf32>
  memref.store %v, %a55[%c0] : memref<16xf32>
  memref.dealloc %a54 : memref<16xf32>
  %a56 = memref.alloc() : memref<16xf32>
  memref.store %v, %a56[%c0] : memref<16xf32>
  memref.dealloc %a55 : memref<16xf32>
  %a57 = memref.alloc() : memref<16xf32>
  memref.store %v, %a57[%c0] : memref<16xf32>
  memref.dealloc %a56 : memref<16xf32>
  %a58 = memref.alloc() : memref<16xf32>
  memref.store %v, %a58[%c0] : memref<16xf32>
  memref.dealloc %a57 : memref<16xf32>
  %a59 = memref.alloc() : memref<16xf32>
  memref.store %v, %a59[%c0] : memref<16xf32>
  memref.dealloc %a58 : memref<16xf32>
  %a60 = memref.alloc() : memref<16xf32>
  memref.store %v, %a60[%c0] : memref<16xf32>
  memref.dealloc %a59 : memref<16xf32>
  %a61 = memref.alloc() : memref<16xf32>
  memref.store %v, %a61[%c0] : memref<16xf32>
  memref.dealloc %a60 : memref<16xf32>
  %a62 = memref.alloc() : memref<16xf32>
  memref.store %v, %a62[%c0] : memref<16xf32>
  memref.dealloc %a61 : memref<16xf32>
  %a63 = memref.alloc() : memref<16xf32>
  memref.store %v, %a63[%c0] : memref<16xf32>
  memref.dealloc %a62 : memref<16xf32>
  %a64 = memref.alloc() : memref<16xf32>
  memref.store %v, %a64[%c0] : memref<16xf32>
  memref.dealloc %a63 : memref<16xf32>
  %a65 = memref.alloc() : memref<16xf32>
  memref.store %v, %a65[%c0] : memref<16xf32>
  memref.dealloc %a64 : memref<16xf32>
  %a66 = memref.alloc() : memref<16xf32>
  memref.store %v, %a66[%c0] : memref<16xf32>
  memref.dealloc %a65 : memref<16xf32>
  %a67 = memref.alloc() : memref<16xf32>
  memref.store %v, %a67[%c0] : memref<16xf32>
  memref.dealloc %a66 : memref<16xf32>
  %a68 = memref.alloc() : memref<16xf32>
  memref.store %v, %a68[%c0] : memref<16xf32>
  memref.dealloc %a67 : memref<16xf32>
  %a69 = memref.alloc() : memref<16xf32>
  memref.store %v, %a69[%c0] : memref<16xf32>
  memref.dealloc %a68 : memref<16xf32>
  %a70 = memref.alloc() : memref<16xf32>
  memref.store %v, %a70[%c0] : memref<16xf32>
  memref.dealloc %a69 : memref<16xf32>
  %a71 = memref.alloc() : memref<16xf32>
  memref.store %v, %a71[%c0] : memref<16xf32>
  memref.dealloc %a70 : memref<16xf32>
  %a72 = memref.alloc() : memref<16xf32>
  memref.store %v, %a72[%c0] : memref<16xf32>
  memref.dealloc %a71 : memref<16xf32>
  %a73 = memref.alloc() : memref<16xf32>
  memref.store %v, %a73[%c0] : memref<16xf32>
  memref.dealloc %a72 : memref<16xf32>
  %a74 = memref.alloc() : memref<16xf32>
  memref.store %v, %a74[%c0] : memref<16xf32>
  memref.dealloc %a73 : memref<16xf32>
  %a75 = memref.alloc() : memref<16xf32>
  memref.store %v, %a75[%c0] : memref<16xf32>
  memref.dealloc %a74 : memref<16xf32>
  %a76 = memref.alloc() : memref<16xf32>
  memref.store %v, %a76[%c0] : memref<16xf32>
  memref.dealloc %a75 : memref<16xf32>
  %a77 = memref.alloc() : memref<16xf32>
  memref.store %v, %a77[%c0] : memref<16xf32>
  memref.dealloc %a76 : memref<16xf32>
  %a78 = memref.alloc() : memref<16xf32>
  memref.store %v, %a78[%c0] : memref<16xf32>
  memref.dealloc %a77 : memref<16xf32>
  %a79 = memref.alloc() : memref<16xf32>
  memref.store %v, %a79[%c0] : memref<16xf32>
  memref.dealloc %a78 : memref<16xf32>
  %a80 = memref.alloc() : memref<16xf32>
  memref.store %v, %a80[%c0] : memref<16xf32>
  memref.dealloc %a79 : memref<16xf32>
  %a81 = memref.alloc() : memref<16xf32>
  memref.store %v, %a81[%c0] : memref<16xf32>
  memref.dealloc %a80 : memref<16xf32>
  %a82 = memref.alloc() : memref<16xf32>
  memref.store %v, %a82[%c0] : memref<16xf32>
  memref.dealloc %a81 : memref<16xf32>
  %a83 = memref.alloc() : memref<16xf32>
  memref.store %v, %a83[%c0] : memref<16xf32>
  memref.dealloc %a82 : memref<16xf32>
  %a84 = memref.alloc() : memref<16xf32>
  memref.store %v, %a84[%c0] : memref<16xf32>
  memref.dealloc %a83 : memref<16xf32>
  %a85 = memref.alloc() : memref<16xf32>
  memref.store %v, %a85[%c0] : memref<16xf32>
  memref.dealloc %a84 : memref<16xf32>
  %a86 = memref.alloc() : memref<16xf32>
  memref.store %v, %a86[%c0] : memref<16xf32>
  memref.dealloc %a85 : memref<16xf32>
  %a87 = memref.alloc() : memref<16xf32>
  memref.store %v, %a87[%c0] : memref<16xf32>
  memref.dealloc %a86 : memref<16xf32>
  %a88 = memref.alloc() : memref<16xf32>
  memref.store %v, %a88[%c0] : memref<16xf32>
  memref.dealloc %a87 : memref<16xf32>
  %a89 = memref.alloc() : memref<16xf32>
  memref.store %v, %a89[%c0] : memref<16xf32>
  memref.dealloc %a88 : memref<16xf32>
  %a90 = memref.alloc() : memref<16xf32>
  memref.store %v, %a90[%c0] : memref<16xf32>
  memref.dealloc %a89 : memref<16xf32>
  %a91 = memref.alloc() : memref<16xf32>
  memref.store %v, %a91[%c0] : memref<16xf32>
  memref.dealloc %a90 : memref<16xf32>
  %a92 = memref.alloc() : memref<16xf32>
  memref.store %v, %a92[%c0] : memref<16xf32>
  memref.dealloc %a91 : memref<16xf32>
  %a93 = memref.alloc() : memref<16xf32>
  memref.store %v, %a93[%c0] : memref<16xf32>
  memref.dealloc %a92 : memref<16xf32>
  %a94 = memref.alloc() : memref<16xf32>
  memref.store %v, %a94[%c0] : memref<16xf32>
  memref.dealloc %a93 : memref<16xf32>
  %a95 = memref.alloc() : memref<16xf32>
  memref.store %v, %a95[%c0] : memref<16xf32>
  memref.dealloc %a94 : memref<16xf32>
  %a96 = memref.alloc() : memref<16xf32>
  memref.store %v, %a96[%c0] : memref<16xf32>
  memref.dealloc %a95 : memref<16xf32>
  %a97 = memref.alloc() : memref<16xf32>
  memref.store %v, %a97[%c0] : memref<16xf32>
  memref.dealloc %a96 : memref<16xf32>
  %a98 = memref.alloc() : memref<16xf32>
  memref.store %v, %a98[%c0] : memref<16xf32>
  memref.dealloc %a97 : memref<16xf32>
  %a99 = memref.alloc() : memref<16xf32>
  memref.store %v, %a99[%c0] : memref<16xf32>
  memref.dealloc %a98 : memref<16xf32>
  %a100 = memref.alloc() : memref<16xf32>
  memref.store %v, %a100[%c0] : memref<16xf32>
  memref.dealloc %a99 : memref<16xf32>
  %a101 = memref.alloc() : memref<16xf32>
  memref.store %v, %a101[%c0] : memref<16xf32>
  memref.dealloc %a100 : memref<16xf32>
  %a102 = memref.alloc() : memref<16xf32>
  memref.store %v, %a102[%c0] : memref<16xf32>
  memref.dealloc %a101 : memref<16xf32>
  %a103 = memref.alloc() : memref<16xf32>
  memref.store %v, %a103[%c0] : memref<16xf32>
  memref.dealloc %a102 : memref<16xf32>
  %a104 = memref.alloc() : memref<16xf32>
  memref.store %v, %a104[%c0] : memref<16xf32>
  memref.dealloc %a103 : memref<16xf32>
  %a105 = memref.alloc() : memref<16xf32>
  memref.store %v, %a105[%c0] : memref<16xf32>
  memref.dealloc %a104 : memref<16xf32>
  %a106 = memref.alloc() : memref<16xf32>
  memref.store %v, %a106[%c0] : memref<16xf32>
  memref.dealloc %a105 : memref<16xf32>
  %a107 = memref.alloc() : memref<16xf32>
  memref.store %v, %a107[%c0] : memref<16xf32>
  memref.dealloc %a106 : memref<16xf32>
  %a108 = memref.alloc() : memref<16xf32>
  memref.store %v, %a108[%c0] : memref<16xf32>
  memref.dealloc %a107 : memref<16xf32>
  %a109 = memref.alloc() : memref<16xf32>
  memref.store %v, %a109[%c0] : memref<16xf32>
  memref.dealloc %a108 : memref<16xf32>
  %a110 = memref.alloc() : memref<16xf32>
  memref.store %v, %a110[%c0] : memref<16xf32>
  memref.dealloc %a109 : memref<16xf32>
  %a111 = memref.alloc() : memref<16xf32>
  memref.store %v, %a111[%c0] : memref<16xf32>
  memref.dealloc %a110 : memref<16xf32>
  %a112 = memref.alloc() : memref<16xf32>
  memref.store %v, %a112[%c0] : memref<16xf32>
  memref.dealloc %a111 : memref<16xf32>
  %a113 = memref.alloc() : memref<16xf32>
  memref.store %v, %a113[%c0] : memref<16xf32>
  memref.dealloc %a112 : memref<16xf32>
  %a114 = memref.alloc() : memref<16xf32>
  memref.store %v, %a114[%c0] : memref<16xf32>
  memref.dealloc %a113 : memref<16xf32>
  %a115 = memref.alloc() : memref<16xf32>
  memref.store %v, %a115[%c0] : memref<16xf32>
  memref.dealloc %a114 : memref<16xf32>
  %a116 = memref.alloc() : memref<16xf32>
  memref.store %v, %a116[%c0] : memref<16xf32>
  memref.dealloc %a115 : memref<16xf32>
  %a117 = memref.alloc() : memref<16xf32>
  memref.store %v, %a117[%c0] : memref<16xf32>
  memref.dealloc %a116 : memref<16xf32>
  %a118 = memref.alloc() : memref<16xf32>
  memref.store %v, %a118[%c0] : memref<16xf32>
  memref.dealloc %a117 : memref<16xf32>
  %a119 = memref.alloc() : memref<16xf32>
  memref.store %v, %a119[%c0] : memref<16xf32>
  memref.dealloc %a118 : memref<16xf32>
  %a120 = memref.alloc() : memref<16xf32>
  memref.store %v, %a120[%c0] : memref<16xf32>
  memref.dealloc %a119 : memref<16xf32>
  %a121 = memref.alloc() : memref<16xf32>
  memref.store %v, %a121[%c0] : memref<16xf32>
  memref.dealloc %a120 : memref<16xf32>
  %a122 = memref.alloc() : memref<16xf32>
  memref.store %v, %a122[%c0] : memref<16xf32>
  memref.dealloc %a121 : memref<16xf32>
  %a123 = memref.alloc() : memref<16xf32>
  memref.store %v, %a123[%c0] : memref<16xf32>
  memref.dealloc %a122 : memref<16xf32>
  %a124 = memref.alloc() : memref<16xf32>
  memref.store %v, %a124[%c0] : memref<16xf32>
  memref.dealloc %a123 : memref<16xf32>
  %a125 = memref.alloc() : memref<16xf32>
  memref.store %v, %a125[%c0] : memref<16xf32>
  memref.dealloc %a124 : memref<16xf32>
  %a126 = memref.alloc() : memref<16xf32>
  memref.store %v, %a126[%c0] : memref<16xf32>
  memref.dealloc %a125 : memref<16xf32>
  %a127 = memref.alloc() : memref<16xf32>
  memref.store %v, %a127[%c0] : memref<16xf32>
  memref.dealloc %a126 : memref<16xf32>
  %a128 = memref.alloc() : memref<16xf32>
  memref.store %v, %a128[%c0] : memref<16xf32>
  memref.dealloc %a127 : memref<16xf32>
  %a129 = memref.alloc() : memref<16xf32>
  memref.store %v, %a129[%c0] : memref<16xf32>
  memref.dealloc %a128 : memref<16xf32>
  %a130 = memref.alloc() : memref<16xf32>
  memref.store %v, %a130[%c0] : memref<16xf32>
  memref.dealloc %a129 : memref<16xf32>
  %a131 = memref.alloc() : memref<16xf32>
  memref.store %v, %a131[%c0] : memref<16xf32>
  memref.dealloc %a130 : memref<16xf32>
  %a132 = memref.alloc() : memref<16xf32>
  memref.store %v, %a132[%c0] : memref<16xf32>
  memref.dealloc %a131 : memref<16xf32>
  %a133 = memref.alloc() : memref<16xf32>
  memref.store %v, %a133[%c0] : memref<16xf32>
  memref.dealloc %a132 : memref<16xf32>
  %a134 = memref.alloc() : memref<16xf32>
  memref.store %v, %a134[%c0] : memref<16xf32>
  memref.dealloc %a133 : memref<16xf32>
  %a135 = memref.alloc() : memref<16xf32>
  memref.store %v, %a135[%c0] : memref<16xf32>
  memref.dealloc %a134 : memref<16xf32>
  %a136 = memref.alloc() : memref<16xf32>
  memref.store %v, %a136[%c0] : memref<16xf32>
  memref.dealloc %a135 : memref<16xf32>
  %a137 = memref.alloc() : memref<16xf32>
  memref.store %v, %a137[%c0] : memref<16xf32>
  memref.dealloc %a136 : memref<16xf32>
  %a138 = memref.alloc() : memref<16xf32>
  memref.store %v, %a138[%c0] : memref<16xf32>
  memref.dealloc %a137 : memref<16xf32>
  %a139 = memref.alloc() : memref<16xf32>
  memref.store %v, %a139[%c0] : memref<16xf32>
  memref.dealloc %a138 : memref<16xf32>
  %a140 = memref.alloc() : memref<16xf32>
  memref.store %v, %a140[%c0] : memref<16xf32>
  memref.dealloc %a139 : memref<16xf32>
  %a141 = memref.alloc() : memref<16xf32>
  memref.store %v, %a141[%c0] : memref<16xf32>
  memref.dealloc %a140 : memref<16xf32>
  %a142 = memref.alloc() : memref<16xf32>
  memref.store %v, %a142[%c0] : memref<16xf32>
  memref.dealloc %a141 : memref<16xf32>
  %a143 = memref.alloc() : memref<16xf32>
  memref.store %v, %a143[%c0] : memref<16xf32>
  memref.dealloc %a142 : memref<16xf32>
  %a144 = memref.alloc() : memref<16xf32>
  memref.store %v, %a144[%c0] : memref<16xf32>
  memref.dealloc %a143 : memref<16xf32>
  %a145 = memref.alloc() : memref<16xf32>
  memref.store %v, %a145[%c0] : memref<16xf32>
  memref.dealloc %a144 : memref<16xf32>
  %a146 = memref.alloc() : memref<16xf32>
  memref.store %v, %a146[%c0] : memref<16xf32>
  memref.dealloc %a145 : memref<16xf32>
  %a147 = memref.alloc() : memref<16xf32>
  memref.store %v, %a147[%c0] : memref<16xf32>
  memref.dealloc %a146 : memref<16xf32>
  %a148 = memref.alloc() : memref<16xf32>
  memref.store %v, %a148[%c0] : memref<16xf32>
  memref.dealloc %a147 : memref<16xf32>
  %a149 = memref.alloc() : memref<16xf32>
  memref.store %v, %a149[%c0] : memref<16xf32>
  memref.dealloc %a148 : memref<16xf32>
  %a150 = memref.alloc() : memref<16xf32>
  memref.store %v, %a150[%c0] : memref<16xf32>
  memref.dealloc %a149 : memref<16xf32>
  %a151 = memref.alloc() : memref<16xf32>
  memref.store %v, %a151[%c0] : memref<16xf32>
  memref.dealloc %a150 : memref<16xf32>
  %a152 = memref.alloc() : memref<16xf32>
  memref.store %v, %a152[%c0] : memref<16xf32>
  memref.dealloc %a151 : memref<16xf32>
  %a153 = memref.alloc() : memref<16xf32>
  memref.store %v, %a153[%c0] : memref<16xf32>
  memref.dealloc %a152 : memref<16xf32>
  %a154 = memref.alloc() : memref<16xf32>
  memref.store %v, %a154[%c0] : memref<16xf32>
  memref.dealloc %a153 : memref<16xf32>
  %a155 = memref.alloc() : memref<16xf32>
  memref.store %v, %a155[%c0] : memref<16xf32>
  memref.dealloc %a154 : memref<16xf32>
  %a156 = memref.alloc() : memref<16xf32>
  memref.store %v, %a156[%c0] : memref<16xf32>
  memref.dealloc %a155 : memref<16xf32>
  %a157 = memref.alloc() : memref<16xf32>
  memref.store %v, %a157[%c0] : memref<16xf32>
  memref.dealloc %a156 : memref<16xf32>
  %a158 = memref.alloc() : memref<16xf32>
  memref.store %v, %a158[%c0] : memref<16xf32>
  memref.dealloc %a157 : memref<16xf32>
  %a159 = memref.alloc() : memref<16xf32>
  memref.store %v, %a159[%c0] : memref<16xf32>
  memref.dealloc %a158 : memref<16xf32>
  %a160 = memref.alloc() : memref<16xf32>
  memref.store %v, %a160[%c0] : memref<16xf32>
  memref.dealloc %a159 : memref<16xf32>
  %a161 = memref.alloc() : memref<16xf32>
  memref.store %v, %a161[%c0] : memref<16xf32>
  memref.dealloc %a160 : memref<16xf32>
  %a162 = memref.alloc() : memref<16xf32>
  memref.store %v, %a162[%c0] : memref<16xf32>
  memref.dealloc %a161 : memref<16xf32>
  %a163 = memref.alloc() : memref<16xf32>
  memref.store %v, %a163[%c0] : memref<16xf32>
  memref.dealloc %a162 : memref<16xf32>
  %a164 = memref.alloc() : memref<16xf32>
  memref.store %v, %a164[%c0] : memref<16xf32>
  memref.dealloc %a163 : memref<16xf32>
  %a165 = memref.alloc() : memref<16xf32>
  memref.store %v, %a165[%c0] : memref<16xf32>
  memref.dealloc %a164 : memref<16xf32>
  %a166 = memref.alloc() : memref<16xf32>
  memref.store %v, %a166[%c0] : memref<16xf32>
  memref.dealloc %a165 : memref<16xf32>
  %a167 = memref.alloc() : memref<16xf32>
  memref.store %v, %a167[%c0] : memref<16xf32>
  memref.dealloc %a166 : memref<16xf32>
  %a168 = memref.alloc() : memref<16xf32>
  memref.store %v, %a168[%c0] : memref<16xf32>
  memref.dealloc %a167 : memref<16xf32>
  %a169 = memref.alloc() : memref<16xf32>
  memref.store %v, %a169[%c0] : memref<16xf32>
  memref.dealloc %a168 : memref<16xf32>
  %a170 = memref.alloc() : memref<16xf32>
  memref.store %v, %a170[%c0] : memref<16xf32>
  memref.dealloc %a169 : memref<16xf32>
  %a171 = memref.alloc() : memref<16xf32>
  memref.store %v, %a171[%c0] : memref<16xf32>
  memref.dealloc %a170 : memref<16xf32>
  %a172 = memref.alloc() : memref<16xf32>
  memref.store %v, %a172[%c0] : memref<16xf32>
  memref.dealloc %a171 : memref<16xf32>
  %a173 = memref.alloc() : memref<16xf32>
  memref.store %v, %a173[%c0] : memref<16xf32>
  memref.dealloc %a172 : memref<16xf32>
  %a174 = memref.alloc() : memref<16xf32>
  memref.store %v, %a174[%c0] : memref<16xf32>
  memref.dealloc %a173 : memref<16xf32>
  %a175 = memref.alloc() : memref<16xf32>
  memref.store %v, %a175[%c0] : memref<16xf32>
  memref.dealloc %a174 : memref<16xf32>
  %a176 = memref.alloc() : memref<16xf32>
  memref.store %v, %a176[%c0] : memref<16xf32>
  memref.dealloc %a175 : memref<16xf32>
  %a177 = memref.alloc() : memref<16xf32>
  memref.store %v, %a177[%c0] : memref<16xf32>
  memref.dealloc %a176 : memref<16xf32>
  %a178 = memref.alloc() : memref<16xf32>
  memref.store %v, %a178[%c0] : memref<16xf32>
  memref.dealloc %a177 : memref<16xf32>
  %a179 = memref.alloc() : memref<16xf32>
  memref.store %v, %a179[%c0] : memref<16xf32>
  memref.dealloc %a178 : memref<16xf32>
  %a180 = memref.alloc() : memref<16xf32>
  memref.store %v, %a180[%c0] : memref<16xf32>
  memref.dealloc %a179 : memref<16xf32>
  %a181 = memref.alloc() : memref<16xf32>
  memref.store %v, %a181[%c0] : memref<16xf32>
  memref.dealloc %a180 : memref<16xf32>
  %a182 = memref.alloc() : memref<16xf32>
  memref.store %v, %a182[%c0] : memref<16xf32>
  memref.dealloc %a181 : memref<16xf32>
  %a183 = memref.alloc() : memref<16xf32>
  memref.store %v, %a183[%c0] : memref<16xf32>
  memref.dealloc %a182 : memref<16xf32>
  %a184 = memref.alloc() : memref<16xf32>
  memref.store %v, %a184[%c0] : memref<16xf32>
  memref.dealloc %a183 : memref<16xf32>
  %a185 = memref.alloc() : memref<16xf32>
  memref.store %v, %a185[%c0] : memref<16xf32>
  memref.dealloc %a184 : memref<16xf32>
  %a186 = memref.alloc() : memref<16xf32>
  memref.store %v, %a186[%c0] : memref<16xf32>
  memref.dealloc %a185 : memref<16xf32>
  %a187 = memref.alloc() : memref<16xf32>
  memref.store %v, %a187[%c0] : memref<16xf32>
  memref.dealloc %a186 : memref<16xf32>
  %a188 = memref.alloc() : memref<16xf32>
  memref.store %v, %a188[%c0] : memref<16xf32>
  memref.dealloc %a187 : memref<16xf32>
  %a189 = memref.alloc() : memref<16xf32>
  memref.store %v, %a189[%c0] : memref<16xf32>
  memref.dealloc %a188 : memref<16xf32>
  %a190 = memref.alloc() : memref<16xf32>
  memref.store %v, %a190[%c0] : memref<16xf32>
  memref.dealloc %a189 : memref<16xf32>
  %a191 = memref.alloc() : memref<16xf32>
  memref.store %v, %a191[%c0] : memref<16xf32>
  memref.dealloc %a190 : memref<16xf32>
  %a192 = memref.alloc() : memref<16xf32>
  memref.store %v, %a192[%c0] : memref<16xf32>
  memref.dealloc %a191 : memref<16xf32>
  %a193 = memref.alloc() : memref<16xf32>
  memref.store %v, %a193[%c0] : memref<16xf32>
  memref.dealloc %a192 : memref<16xf32>
  %a194 = memref.alloc() : memref<16xf32>
  memref.store %v, %a194[%c0] : memref<16xf32>
  memref.dealloc %a193 : memref<16xf32>
  %a195 = memref.alloc() : memref<16xf32>
  memref.store %v, %a195[%c0] : memref<16xf32>
  memref.dealloc %a194 : memref<16xf32>
  %a196 = memref.alloc() : memref<16xf32>
  memref.store %v, %a196[%c0] : memref<16xf32>
  memref.dealloc %a195 : memref<16xf32>
  %a197 = memref.alloc() : memref<16xf32>
  memref.store %v, %a197[%c0] : memref<16xf32>
  memref.dealloc %a196 : memref<16xf32>
  %a198 = memref.alloc() : memref<16xf32>
  memref.store %v, %a198[%c0] : memref<16xf32>
  memref.dealloc %a197 : memref<16xf32>
  %a199 = memref.alloc() : memref<16xf32>
  memref.store %v, %a199[%c0] : memref<16xf32>
  memref.dealloc %a198 : memref<16xf32>
  %a200 = memref.alloc() : memref<16xf32>
  memref.store %v, %a200[%c0] : memref<16xf32>
  memref.dealloc %a199 : memref<16xf32>
  %a201 = memref.alloc() : memref<16xf32>
  memref.store %v, %a201[%c0] : memref<16xf32>
  memref.dealloc %a200 : memref<16xf32>
  %a202 = memref.alloc() : memref<16xf32>
  memref.store %v, %a202[%c0] : memref<16xf32>
  memref.dealloc %a201 : memref<16xf32>
  %a203 = memref.alloc() : memref<16xf32>
  memref.store %v, %a203[%c0] : memref<16xf32>
  memref.dealloc %a202 : memref<16xf32>
  %a204 = memref.alloc() : memref<16xf32>
  memref.store %v, %a204[%c0] : memref<16xf32>
  memref.dealloc %a203 : memref<16xf32>
  %a205 = memref.alloc() : memref<16xf32>
  memref.store %v, %a205[%c0] : memref<16xf32>
  memref.dealloc %a204 : memref<16xf32>
  %a206 = memref.alloc() : memref<16xf32>
  memref.store %v, %a206[%c0] : memref<16xf32>
  memref.dealloc %a205 : memref<16xf32>
  %a207 = memref.alloc() : memref<16xf32>
  memref.store %v, %a207[%c0] : memref<16xf32>
  memref.dealloc %a206 : memref<16xf32>
  %a208 = memref.alloc() : memref<16xf32>
  memref.store %v, %a208[%c0] : memref<16xf32>
  memref.dealloc %a207 : memref<16xf32>
  %a209 = memref.alloc() : memref<16xf32>
  memref.store %v, %a209[%c0] : memref<16xf32>
  memref.dealloc %a208 : memref<16xf32>
  %a210 = memref.alloc() : memref<16xf32>
  memref.store %v, %a210[%c0] : memref<16xf32>
  memref.dealloc %a209 : memref<16xf32>
  %a211 = memref.alloc() : memref<16xf32>
  memref.store %v, %a211[%c0] : memref<16xf32>
  memref.dealloc %a210 : memref<16xf32>
  %a212 = memref.alloc() : memref<16xf32>
  memref.store %v, %a212[%c0] : memref<16xf32>
  memref.dealloc %a211 : memref<16xf32>
  %a213 = memref.alloc() : memref<16xf32>
  memref.store %v, %a213[%c0] : memref<16xf32>
  memref.dealloc %a212 : memref<16xf32>
  %a214 = memref.alloc() : memref<16xf32>
  memref.store %v, %a214[%c0] : memref<16xf32>
  memref.dealloc %a213 : memref<16xf32>
  %a215 = memref.alloc() : memref<16xf32>
  memref.store %v, %a215[%c0] : memref<16xf32>
  memref.dealloc %a214 : memref<16xf32>
  %a216 = memref.alloc() : memref<16xf32>
  memref.store %v, %a216[%c0] : memref<16xf32>
  memref.dealloc %a215 : memref<16xf32>
  %a217 = memref.alloc() : memref<16xf32>
  memref.store %v, %a217[%c0] : memref<16xf32>
  memref.dealloc %a216 : memref<16xf32>
  %a218 = memref.alloc() : memref<16xf32>
  memref.store %v, %a218[%c0] : memref<16xf32>
  memref.dealloc %a217 : memref<16xf32>
  %a219 = memref.alloc() : memref<16xf32>
  memref.store %v, %a219[%c0] : memref<16xf32>
  memref.dealloc %a218 : memref<16xf32>
  %a220 = memref.alloc() : memref<16xf32>
  memref.store %v, %a220[%c0] : memref<16xf32>
  memref.dealloc %a219 : memref<16xf32>
  %a221 = memref.alloc() : memref<16xf32>
  memref.store %v, %a221[%c0] : memref<16xf32>
  memref.dealloc %a220 : memref<16xf32>
  %a222 = memref.alloc() : memref<16xf32>
  memref.store %v, %a222[%c0] : memref<16xf32>
  memref.dealloc %a221 : memref<16xf32>
  %a223 = memref.alloc() : memref<16xf32>
  memref.store %v, %a223[%c0] : memref<16xf32>
  memref.dealloc %a222 : memref<16xf32>
  %a224 = memref.alloc() : memref<16xf32>
  memref.store %v, %a224[%c0] : memref<16xf32>
  memref.dealloc %a223 : memref<16xf32>
  %a225 = memref.alloc() : memref<16xf32>
  memref.store %v, %a225[%c0] : memref<16xf32>
  memref.dealloc %a224 : memref<16xf32>
  %a226 = memref.alloc() : memref<16xf32>
  memref.store %v, %a226[%c0] : memref<16xf32>
  memref.dealloc %a225 : memref<16xf32>
  %a227 = memref.alloc() : memref<16xf32>
  memref.store %v, %a227[%c0] : memref<16xf32>
  memref.dealloc %a226 : memref<16xf32>
  %a228 = memref.alloc() : memref<16xf32>
  memref.store %v, %a228[%c0] : memref<16xf32>
  memref.dealloc %a227 : memref<16xf32>
  %a229 = memref.alloc() : memref<16xf32>
  memref.store %v, %a229[%c0] : memref<16xf32>
  memref.dealloc %a228 : memref<16xf32>
  %a230 = memref.alloc() : memref<16xf32>
  memref.store %v, %a230[%c0] : memref<16xf32>
  memref.dealloc %a229 : memref<16xf32>
  %a231 = memref.alloc() : memref<16xf32>
  memref.store %v, %a231[%c0] : memref<16xf32>
  memref.dealloc %a230 : memref<16xf32>
  %a232 = memref.alloc() : memref<16xf32>
  memref.store %v, %a232[%c0] : memref<16xf32>
  memref.dealloc %a231 : memref<16xf32>
  %a233 = memref.alloc() : memref<16xf32>
  memref.store %v, %a233[%c0] : memref<16xf32>
  memref.dealloc %a232 : memref<16xf32>
  %a234 = memref.alloc() : memref<16xf32>
  memref.store %v, %a234[%c0] : memref<16xf32>
  memref.dealloc %a233 : memref<16xf32>
  %a235 = memref.alloc() : memref<16xf32>
  memref.store %v, %a235[%c0] : memref<16xf32>
  memref.dealloc %a234 : memref<16xf32>
  %a236 = memref.alloc() : memref<16xf32>
  memref.store %v, %a236[%c0] : memref<16xf32>
  memref.dealloc %a235 : memref<16xf32>
  %a237 = memref.alloc() : memref<16xf32>
  memref.store %v, %a237[%c0] : memref<16xf32>
  memref.dealloc %a236 : memref<16xf32>
  %a238 = memref.alloc() : memref<16xf32>
  memref.store %v, %a238[%c0] : memref<16xf32>
  memref.dealloc %a237 : memref<16xf32>
  %a239 = memref.alloc() : memref<16xf32>
  memref.store %v, %a239[%c0] : memref<16xf32>
  memref.dealloc %a238 : memref<16xf32>
  %a240 = memref.alloc() : memref<16xf32>
  memref.store %v, %a240[%c0] : memref<16xf32>
  memref.dealloc %a239 : memref<16xf32>
  %a241 = memref.alloc() : memref<16xf32>
  memref.store %v, %a241[%c0] : memref<16xf32>
  memref.dealloc %a240 : memref<16xf32>
  %a242 = memref.alloc() : memref<16xf32>
  memref.store %v, %a242[%c0] : memref<16xf32>
  memref.dealloc %a241 : memref<16xf32>
  %a243 = memref.alloc() : memref<16xf32>
  memref.store %v, %a243[%c0] : memref<16xf32>
  memref.dealloc %a242 : memref<16xf32>
  %a244 = memref.alloc() : memref<16xf32>
  memref.store %v, %a244[%c0] : memref<16xf32>
  memref.dealloc %a243 : memref<16xf32>
  %a245 = memref.alloc() : memref<16xf32>
  memref.store %v, %a245[%c0] : memref<16xf32>
  memref.dealloc %a244 : memref<16xf32>
  %a246 = memref.alloc() : memref<16xf32>
  memref.store %v, %a246[%c0] : memref<16xf32>
  memref.dealloc %a245 : memref<16xf32>
  %a247 = memref.alloc() : memref<16xf32>
  memref.store %v, %a247[%c0] : memref<16xf32>
  memref.dealloc %a246 : memref<16xf32>
  %a248 = memref.alloc() : memref<16xf32>
  memref.store %v, %a248[%c0] : memref<16xf32>
  memref.dealloc %a247 : memref<16xf32>
  %a249 = memref.alloc() : memref<16xf32>
  memref.store %v, %a249[%c0] : memref<16xf32>
  memref.dealloc %a248 : memref<16xf32>
  %a250 = memref.alloc() : memref<16xf32>
  memref.store %v, %a250[%c0] : memref<16xf32>
  memref.dealloc %a249 : memref<16xf32>
  %a251 = memref.alloc() : memref<16xf32>
  memref.store %v, %a251[%c0] : memref<16xf32>
  memref.dealloc %a250 : memref<16xf32>
  %a252 = memref.alloc() : memref<16xf32>
  memref.store %v, %a252[%c0] : memref<16xf32>
  memref.dealloc %a251 : memref<16xf32>
  %a253 = memref.alloc() : memref<16xf32>
  memref.store %v, %a253[%c0] : memref<16xf32>
  memref.dealloc %a252 : memref<16xf32>
  %a254 = memref.alloc() : memref<16xf32>
  memref.store %v, %a254[%c0] : memref<16xf32>
  memref.dealloc %a253 : memref<16xf32>
  %a255 = memref.alloc() : memref<16xf32>
  memref.store %v, %a255[%c0] : memref<16xf32>
  memref.dealloc %a254 : memref<16xf32>
  %a256 = memref.alloc() : memref<16xf32>
  memref.store %v, %a256[%c0] : memref<16xf32>
  memref.dealloc %a255 : memref<16xf32>
  %a257 = memref.alloc() : memref<16xf32>
  memref.store %v, %a257[%c0] : memref<16xf32>
  memref.dealloc %a256 : memref<16xf32>
  %a258 = memref.alloc() : memref<16xf32>
  memref.store %v, %a258[%c0] : memref<16xf32>
  memref.dealloc %a257 : memref<16xf32>
  %a259 = memref.alloc() : memref<16xf32>
  memref.store %v, %a259[%c0] : memref<16xf32>
  memref.dealloc %a258 : memref<16xf32>
  %a260 = memref.alloc() : memref<16xf32>
  memref.store %v, %a260[%c0] : memref<16xf32>
  memref.dealloc %a259 : memref<16xf32>
  %a261 = memref.alloc() : memref<16xf32>
  memref.store %v, %a261[%c0] : memref<16xf32>
  memref.dealloc %a260 : memref<16xf32>
  %a262 = memref.alloc() : memref<16xf32>
  memref.store %v, %a262[%c0] : memref<16xf32>
  memref.dealloc %a261 : memref<16xf32>
  %a263 = memref.alloc() : memref<16xf32>
  memref.store %v, %a263[%c0] : memref<16xf32>
  memref.dealloc %a262 : memref<16xf32>
  %a264 = memref.alloc() : memref<16xf32>
  memref.store %v, %a264[%c0] : memref<16xf32>
  memref.dealloc %a263 : memref<16xf32>
  %a265 = memref.alloc() : memref<16xf32>
  memref.store %v, %a265[%c0] : memref<16xf32>
  memref.dealloc %a264 : memref<16xf32>
  %a266 = memref.alloc() : memref<16xf32>
  memref.store %v, %a266[%c0] : memref<16xf32>
  memref.dealloc %a265 : memref<16xf32>
  %a267 = memref.alloc() : memref<16xf32>
  memref.store %v, %a267[%c0] : memref<16xf32>
  memref.dealloc %a266 : memref<16xf32>
  %a268 = memref.alloc() : memref<16xf32>
  memref.store %v, %a268[%c0] : memref<16xf32>
  memref.dealloc %a267 : memref<16xf32>
  %a269 = memref.alloc() : memref<16xf32>
  memref.store %v, %a269[%c0] : memref<16xf32>
  memref.dealloc %a268 : memref<16xf32>
  %a270 = memref.alloc() : memref<16xf32>
  memref.store %v, %a270[%c0] : memref<16xf32>
  memref.dealloc %a269 : memref<16xf32>
  %a271 = memref.alloc() : memref<16xf32>
  memref.store %v, %a271[%c0] : memref<16xf32>
  memref.dealloc %a270 : memref<16xf32>
  %a272 = memref.alloc() : memref<16xf32>
  memref.store %v, %a272[%c0] : memref<16xf32>
  memref.dealloc %a271 : memref<16xf32>
  %a273 = memref.alloc() : memref<16xf32>
  memref.store %v, %a273[%c0] : memref<16xf32>
  memref.dealloc %a272 : memref<16xf32>
  %a274 = memref.alloc() : memref<16xf32>
  memref.store %v, %a274[%c0] : memref<16xf32>
  memref.dealloc %a273 : memref<16xf32>
  %a275 = memref.alloc() : memref<16xf32>
  memref.store %v, %a275[%c0] : memref<16xf32>
  memref.dealloc %a274 : memref<16xf32>
  %a276 = memref.alloc() : memref<16xf32>
  memref.store %v, %a276[%c0] : memref<16xf32>
  memref.dealloc %a275 : memref<16xf32>
  %a277 = memref.alloc() : memref<16xf32>
  memref.store %v, %a277[%c0] : memref<16xf32>
  memref.dealloc %a276 : memref<16xf32>
  %a278 = memref.alloc() : memref<16xf32>
  memref.store %v, %a278[%c0] : memref<16xf32>
  memref.dealloc %a277 : memref<16xf32>
  %a279 = memref.alloc() : memref<16xf32>
  memref.store %v, %a279[%c0] : memref<16xf32>
  memref.dealloc %a278 : memref<16xf32>
  %a280 = memref.alloc() : memref<16xf32>
  memref.store %v, %a280[%c0] : memref<16xf32>
  memref.dealloc %a279 : memref<16xf32>
  %a281 = memref.alloc() : memref<16xf32>
  memref.store %v, %a281[%c0] : memref<16xf32>
  memref.dealloc %a280 : memref<16xf32>
  %a282 = memref.alloc() : memref<16xf32>
  memref.store %v, %a282[%c0] : memref<16xf32>
  memref.dealloc %a281 : memref<16xf32>
  %a283 = memref.alloc() : memref<16xf32>
  memref.store %v, %a283[%c0] : memref<16xf32>
  memref.dealloc %a282 : memref<16xf32>
  %a284 = memref.alloc() : memref<16xf32>
  memref.store %v, %a284[%c0] : memref<16xf32>
  memref.dealloc %a283 : memref<16xf32>
  %a285 = memref.alloc() : memref<16xf32>
  memref.store %v, %a285[%c0] : memref<16xf32>
  memref.dealloc %a284 : memref<16xf32>
  %a286 = memref.alloc() : memref<16xf32>
  memref.store %v, %a286[%c0] : memref<16xf32>
  memref.dealloc %a285 : memref<16xf32>
  %a287 = memref.alloc() : memref<16xf32>
  memref.store %v, %a287[%c0] : memref<16xf32>
  memref.dealloc %a286 : memref<16xf32>
  %a288 = memref.alloc() : memref<16xf32>
  memref.store %v, %a288[%c0] : memref<16xf32>
  memref.dealloc %a287 : memref<16xf32>
  %a289 = memref.alloc() : memref<16xf32>
  memref.store %v, %a289[%c0] : memref<16xf32>
  memref.dealloc %a288 : memref<16xf32>
  %a290 = memref.alloc() : memref<16xf32>
  memref.store %v, %a290[%c0] : memref<16xf32>
  memref.dealloc %a289 : memref<16xf32>
  %a291 = memref.alloc() : memref<16xf32>
  memref.store %v, %a291[%c0] : memref<16xf32>
  memref.dealloc %a290 : memref<16xf32>
  %a292 = memref.alloc() : memref<16xf32>
  memref.store %v, %a292[%c0] : memref<16xf32>
  memref.dealloc %a291 : memref<16xf32>
  %a293 = memref.alloc() : memref<16xf32>
  memref.store %v, %a293[%c0] : memref<16xf32>
  memref.dealloc %a292 : memref<16xf32>
  %a294 = memref.alloc() : memref<16xf32>
  memref.store %v, %a294[%c0] : memref<16xf32>
  memref.dealloc %a293 : memref<16xf32>
  %a295 = memref.alloc() : memref<16xf32>
  memref.store %v, %a295[%c0] : memref<16xf32>
  memref.dealloc %a294 : memref<16xf32>
  %a296 = memref.alloc() : memref<16xf32>
  memref.store %v, %a296[%c0] : memref<16xf32>
  memref.dealloc %a295 : memref<16xf32>
  %a297 = memref.alloc() : memref<16xf32>
  memref.store %v, %a297[%c0] : memref<16xf32>
  memref.dealloc %a296 : memref<16xf32>
  %a298 = memref.alloc() : memref<16xf32>
  memref.store %v, %a298[%c0] : memref<16xf32>
  memref.dealloc %a297 : memref<16xf32>
  %a299 = memref.alloc() : memref<16xf32>
  memref.store %v, %a299[%c0] : memref<16xf32>
  memref.dealloc %a298 : memref<16xf32>
  %a300 = memref.alloc() : memref<16xf32>
  memref.store %v, %a300[%c0] : memref<16xf32>
  memref.dealloc %a299 : memref<16xf32>
  %a301 = memref.alloc() : memref<16xf32>
  memref.store %v, %a301[%c0] : memref<16xf32>
  memref.dealloc %a300 : memref<16xf32>
  %a302 = memref.alloc() : memref<16xf32>
  memref.store %v, %a302[%c0] : memref<16xf32>
  memref.dealloc %a301 : memref<16xf32>
  %a303 = memref.alloc() : memref<16xf32>
  memref.store %v, %a303[%c0] : memref<16xf32>
  memref.dealloc %a302 : memref<16xf32>
  %a304 = memref.alloc() : memref<16xf32>
  memref.store %v, %a304[%c0] : memref<16xf32>
  memref.dealloc %a303 : memref<16xf32>
  %a305 = memref.alloc() : memref<16xf32>
  memref.store %v, %a305[%c0] : memref<16xf32>
  memref.dealloc %a304 : memref<16xf32>
  %a306 = memref.alloc() : memref<16xf32>
  memref.store %v, %a306[%c0] : memref<16xf32>
  memref.dealloc %a305 : memref<16xf32>
  %a307 = memref.alloc() : memref<16xf32>
  memref.store %v, %a307[%c0] : memref<16xf32>
  memref.dealloc %a306 : memref<16xf32>
  %a308 = memref.alloc() : memref<16xf32>
  memref.store %v, %a308[%c0] : memref<16xf32>
  memref.dealloc %a307 : memref<16xf32>
  %a309 = memref.alloc() : memref<16xf32>
  memref.store %v, %a309[%c0] : memref<16xf32>
  memref.dealloc %a308 : memref<16xf32>
  %a310 = memref.alloc() : memref<16xf32>
  memref.store %v, %a310[%c0] : memref<16xf32>
  memref.dealloc %a309 : memref<16xf32>
  %a311 = memref.alloc() : memref<16xf32>
  memref.store %v, %a311[%c0] : memref<16xf32>
  memref.dealloc %a310 : memref<16xf32>
  %a312 = memref.alloc() : memref<16xf32>
  memref.store %v, %a312[%c0] : memref<16xf32>
  memref.dealloc %a311 : memref<16xf32>
  %a313 = memref.alloc() : memref<16xf32>
  memref.store %v, %a313[%c0] : memref<16xf32>
  memref.dealloc %a312 : memref<16xf32>
  %a314 = memref.alloc() : memref<16xf32>
  memref.store %v, %a314[%c0] : memref<16xf32>
  memref.dealloc %a313 : memref<16xf32>
  %a315 = memref.alloc() : memref<16xf32>
  memref.store %v, %a315[%c0] : memref<16xf32>
  memref.dealloc %a314 : memref<16xf32>
  %a316 = memref.alloc() : memref<16xf32>
  memref.store %v, %a316[%c0] : memref<16xf32>
  memref.dealloc %a315 : memref<16xf32>
  %a317 = memref.alloc() : memref<16xf32>
  memref.store %v, %a317[%c0] : memref<16xf32>
  memref.dealloc %a316 : memref<16xf32>
  %a318 = memref.alloc() : memref<16xf32>
  memref.store %v, %a318[%c0] : memref<16xf32>
  memref.dealloc %a317 : memref<16xf32>
  %a319 = memref.alloc() : memref<16xf32>
  memref.store %v, %a319[%c0] : memref<16xf32>
  memref.dealloc %a318 : memref<16xf32>
  %a320 = memref.alloc() : memref<16xf32>
  memref.store %v, %a320[%c0] : memref<16xf32>
  memref.dealloc %a319 : memref<16xf32>
  %a321 = memref.alloc() : memref<16xf32>
  memref.store %v, %a321[%c0] : memref<16xf32>
  memref.dealloc %a320 : memref<16xf32>
  %a322 = memref.alloc() : memref<16xf32>
  memref.store %v, %a322[%c0] : memref<16xf32>
  memref.dealloc %a321 : memref<16xf32>
  %a323 = memref.alloc() : memref<16xf32>
  memref.store %v, %a323[%c0] : memref<16xf32>
  memref.dealloc %a322 : memref<16xf32>
  %a324 = memref.alloc() : memref<16xf32>
  memref.store %v, %a324[%c0] : memref<16xf32>
  memref.dealloc %a323 : memref<16xf32>
  %a325 = memref.alloc() : memref<16xf32>
  memref.store %v, %a325[%c0] : memref<16xf32>
  memref.dealloc %a324 : memref<16xf32>
  %a326 = memref.alloc() : memref<16xf32>
  memref.store %v, %a326[%c0] : memref<16xf32>
  memref.dealloc %a325 : memref<16xf32>
  %a327 = memref.alloc() : memref<16xf32>
  memref.store %v, %a327[%c0] : memref<16xf32>
  memref.dealloc %a326 : memref<16xf32>
  %a328 = memref.alloc() : memref<16xf32>
  memref.store %v, %a328[%c0] : memref<16xf32>
  memref.dealloc %a327 : memref<16xf32>
  %a329 = memref.alloc() : memref<16xf32>
  memref.store %v, %a329[%c0] : memref<16xf32>
  memref.dealloc %a328 : memref<16xf32>
  %a330 = memref.alloc() : memref<16xf32>
  memref.store %v, %a330[%c0] : memref<16xf32>
  memref.dealloc %a329 : memref<16xf32>
  %a331 = memref.alloc() : memref<16xf32>
  memref.store %v, %a331[%c0] : memref<16xf32>
  memref.dealloc %a330 : memref<16xf32>
  %a332 = memref.alloc() : memref<16xf32>
  memref.store %v, %a332[%c0] : memref<16xf32>
  memref.dealloc %a331 : memref<16xf32>
  %a333 = memref.alloc() : memref<16xf32>
  memref.store %v, %a333[%c0] : memref<16xf32>
  memref.dealloc %a332 : memref<16xf32>
  %a334 = memref.alloc() : memref<16xf32>
  memref.store %v, %a334[%c0] : memref<16xf32>
  memref.dealloc %a333 : memref<16xf32>
  %a335 = memref.alloc() : memref<16xf32>
  memref.store %v, %a335[%c0] : memref<16xf32>
  memref.dealloc %a334 : memref<16xf32>
  %a336 = memref.alloc() : memref<16xf32>
  memref.store %v, %a336[%c0] : memref<16xf32>
  memref.dealloc %a335 : memref<16xf32>
  %a337 = memref.alloc() : memref<16xf32>
  memref.store %v, %a337[%c0] : memref<16xf32>
  memref.dealloc %a336 : memref<16xf32>
  %a338 = memref.alloc() : memref<16xf32>
  memref.store %v, %a338[%c0] : memref<16xf32>
  memref.dealloc %a337 : memref<16xf32>
  %a339 = memref.alloc() : memref<16xf32>
  memref.store %v, %a339[%c0] : memref<16xf32>
  memref.dealloc %a338 : memref<16xf32>
  %a340 = memref.alloc() : memref<16xf32>
  memref.store %v, %a340[%c0] : memref<16xf32>
  memref.dealloc %a339 : memref<16xf32>
  %a341 = memref.alloc() : memref<16xf32>
  memref.store %v, %a341[%c0] : memref<16xf32>
  memref.dealloc %a340 : memref<16xf32>
  %a342 = memref.alloc() : memref<16xf32>
  memref.store %v, %a342[%c0] : memref<16xf32>
  memref.dealloc %a341 : memref<16xf32>
  %a343 = memref.alloc() : memref<16xf32>
  memref.store %v, %a343[%c0] : memref<16xf32>
  memref.dealloc %a342 : memref<16xf32>
  %a344 = memref.alloc() : memref<16xf32>
  memref.store %v, %a344[%c0] : memref<16xf32>
  memref.dealloc %a343 : memref<16xf32>
  %a345 = memref.alloc() : memref<16xf32>
  memref.store %v, %a345[%c0] : memref<16xf32>
  memref.dealloc %a344 : memref<16xf32>
  %a346 = memref.alloc() : memref<16xf32>
  memref.store %v, %a346[%c0] : memref<16xf32>
  memref.dealloc %a345 : memref<16xf32>
  %a347 = memref.alloc() : memref<16xf32>
  memref.store %v, %a347[%c0] : memref<16xf32>
  memref.dealloc %a346 : memref<16xf32>
  %a348 = memref.alloc() : memref<16xf32>
  memref.store %v, %a348[%c0] : memref<16xf32>
  memref.dealloc %a347 : memref<16xf32>
  %a349 = memref.alloc() : memref<16xf32>
  memref.store %v, %a349[%c0] : memref<16xf32>
  memref.dealloc %a348 : memref<16xf32>
  %a350 = memref.alloc() : memref<16xf32>
  memref.store %v, %a350[%c0] : memref<16xf32>
  memref.dealloc %a349 : memref<16xf32>
  %a351 = memref.alloc() : memref<16xf32>
  memref.store %v, %a351[%c0] : memref<16xf32>
  memref.dealloc %a350 : memref<16xf32>
  %a352 = memref.alloc() : memref<16xf32>
  memref.store %v, %a352[%c0] : memref<16xf32>
  memref.dealloc %a351 : memref<16xf32>
  %a353 = memref.alloc() : memref<16xf32>
  memref.store %v, %a353[%c0] : memref<16xf32>
  memref.dealloc %a352 : memref<16xf32>
  %a354 = memref.alloc() : memref<16xf32>
  memref.store %v, %a354[%c0] : memref<16xf32>
  memref.dealloc %a353 : memref<16xf32>
  %a355 = memref.alloc() : memref<16xf32>
  memref.store %v, %a355[%c0] : memref<16xf32>
  memref.dealloc %a354 : memref<16xf32>
  %a356 = memref.alloc() : memref<16xf32>
  memref.store %v, %a356[%c0] : memref<16xf32>
  memref.dealloc %a355 : memref<16xf32>
  %a357 = memref.alloc() : memref<16xf32>
  memref.store %v, %a357[%c0] : memref<16xf32>
  memref.dealloc %a356 : memref<16xf32>
  %a358 = memref.alloc() : memref<16xf32>
  memref.store %v, %a358[%c0] : memref<16xf32>
  memref.dealloc %a357 : memref<16xf32>
  %a359 = memref.alloc() : memref<16xf32>
  memref.store %v, %a359[%c0] : memref<16xf32>
  memref.dealloc %a358 : memref<16xf32>
  %a360 = memref.alloc() : memref<16xf32>
  memref.store %v, %a360[%c0] : memref<16xf32>
  memref.dealloc %a359 : memref<16xf32>
  %a361 = memref.alloc() : memref<16xf32>
  memref.store %v, %a361[%c0] : memref<16xf32>
  memref.dealloc %a360 : memref<16xf32>
  %a362 = memref.alloc() : memref<16xf32>
  memref.store %v, %a362[%c0] : memref<16xf32>
  memref.dealloc %a361 : memref<16xf32>
  %a363 = memref.alloc() : memref<16xf32>
  memref.store %v, %a363[%c0] : memref<16xf32>
  memref.dealloc %a362 : memref<16xf32>
  %a364 = memref.alloc() : memref<16xf32>
  memref.store %v, %a364[%c0] : memref<16xf32>
  memref.dealloc %a363 : memref<16xf32>
  %a365 = memref.alloc() : memref<16xf32>
  memref.store %v, %a365[%c0] : memref<16xf32>
  memref.dealloc %a364 : memref<16xf32>
  %a366 = memref.alloc() : memref<16xf32>
  memref.store %v, %a366[%c0] : memref<16xf32>
  memref.dealloc %a365 : memref<16xf32>
  %a367 = memref.alloc() : memref<16xf32>
  memref.store %v, %a367[%c0] : memref<16xf32>
  memref.dealloc %a366 : memref<16xf32>
  %a368 = memref.alloc() : memref<16xf32>
  memref.store %v, %a368[%c0] : memref<16xf32>
  memref.dealloc %a367 : memref<16xf32>
  %a369 = memref.alloc() : memref<16xf32>
  memref.store %v, %a369[%c0] : memref<16xf32>
  memref.dealloc %a368 : memref<16xf32>
  %a370 = memref.alloc() : memref<16xf32>
  memref.store %v, %a370[%c0] : memref<16xf32>
  memref.dealloc %a369 : memref<16xf32>
  %a371 = memref.alloc() : memref<16xf32>
  memref.store %v, %a371[%c0] : memref<16xf32>
  memref.dealloc %a370 : memref<16xf32>
  %a372 = memref.alloc() : memref<16xf32>
  memref.store %v, %a372[%c0] : memref<16xf32>
  memref.dealloc %a371 : memref<16xf32>
  %a373 = memref.alloc() : memref<16xf32>
  memref.store %v, %a373[%c0] : memref<16xf32>
  memref.dealloc %a372 : memref<16xf32>
  %a374 = memref.alloc() : memref<16xf32>
  memref.store %v, %a374[%c0] : memref<16xf32>
  memref.dealloc %a373 : memref<16xf32>
  %a375 = memref.alloc() : memref<16xf32>
  memref.store %v, %a375[%c0] : memref<16xf32>
  memref.dealloc %a374 : memref<16xf32>
  %a376 = memref.alloc() : memref<16xf32>
  memref.store %v, %a376[%c0] : memref<16xf32>
  memref.dealloc %a375 : memref<16xf32>
  %a377 = memref.alloc() : memref<16xf32>
  memref.store %v, %a377[%c0] : memref<16xf32>
  memref.dealloc %a376 : memref<16xf32>
  %a378 = memref.alloc() : memref<16xf32>
  memref.store %v, %a378[%c0] : memref<16xf32>
  memref.dealloc %a377 : memref<16xf32>
  %a379 = memref.alloc() : memref<16xf32>
  memref.store %v, %a379[%c0] : memref<16xf32>
  memref.dealloc %a378 : memref<16xf32>
  %a380 = memref.alloc() : memref<16xf32>
  memref.store %v, %a380[%c0] : memref<16xf32>
  memref.dealloc %a379 : memref<16xf32>
  %a381 = memref.alloc() : memref<16xf32>
  memref.store %v, %a381[%c0] : memref<16xf32>
  memref.dealloc %a380 : memref<16xf32>
  %a382 = memref.alloc() : memref<16xf32>
  memref.store %v, %a382[%c0] : memref<16xf32>
  memref.dealloc %a381 : memref<16xf32>
  %a383 = memref.alloc() : memref<16xf32>
  memref.store %v, %a383[%c0] : memref<16xf32>
  memref.dealloc %a382 : memref<16xf32>
  %a384 = memref.alloc() : memref<16xf32>
  memref.store %v, %a384[%c0] : memref<16xf32>
  memref.dealloc %a383 : memref<16xf32>
  %a385 = memref.alloc() : memref<16xf32>
  memref.store %v, %a385[%c0] : memref<16xf32>
  memref.dealloc %a384 : memref<16xf32>
  %a386 = memref.alloc() : memref<16xf32>
  memref.store %v, %a386[%c0] : memref<16xf32>
  memref.dealloc %a385 : memref<16xf32>
  %a387 = memref.alloc() : memref<16xf32>
  memref.store %v, %a387[%c0] : memref<16xf32>
  memref.dealloc %a386 : memref<16xf32>
  %a388 = memref.alloc() : memref<16xf32>
  memref.store %v, %a388[%c0] : memref<16xf32>
  memref.dealloc %a387 : memref<16xf32>
  %a389 = memref.alloc() : memref<16xf32>
  memref.store %v, %a389[%c0] : memref<16xf32>
  memref.dealloc %a388 : memref<16xf32>
  %a390 = memref.alloc() : memref<16xf32>
  memref.store %v, %a390[%c0] : memref<16xf32>
  memref.dealloc %a389 : memref<16xf32>
  %a391 = memref.alloc() : memref<16xf32>
  memref.store %v, %a391[%c0] : memref<16xf32>
  memref.dealloc %a390 : memref<16xf32>
  %a392 = memref.alloc() : memref<16xf32>
  memref.store %v, %a392[%c0] : memref<16xf32>
  memref.dealloc %a391 : memref<16xf32>
  %a393 = memref.alloc() : memref<16xf32>
  memref.store %v, %a393[%c0] : memref<16xf32>
  memref.dealloc %a392 : memref<16xf32>
  %a394 = memref.alloc() : memref<16xf32>
  memref.store %v, %a394[%c0] : memref<16xf32>
  memref.dealloc %a393 : memref<16xf32>
  %a395 = memref.alloc() : memref<16xf32>
  memref.store %v, %a395[%c0] : memref<16xf32>
  memref.dealloc %a394 : memref<16xf32>
  %a396 = memref.alloc() : memref<16xf32>
  memref.store %v, %a396[%c0] : memref<16xf32>
  memref.dealloc %a395 : memref<16xf32>
  %a397 = memref.alloc() : memref<16xf32>
  memref.store %v, %a397[%c0] : memref<16xf32>
  memref.dealloc %a396 : memref<16xf32>
  %a398 = memref.alloc() : memref<16xf32>
  memref.store %v, %a398[%c0] : memref<16xf32>
  memref.dealloc %a397 : memref<16xf32>
  %a399 = memref.alloc() : memref<16xf32>
  memref.store %v, %a399[%c0] : memref<16xf32>
  memref.dealloc %a398 : memref<16xf32>
  %a400 = memref.alloc() : memref<16xf32>
  memref.store %v, %a400[%c0] : memref<16xf32>
  memref.dealloc %a399 : memref<16xf32>
  %a401 = memref.alloc() : memref<16xf32>
  memref.store %v, %a401[%c0] : memref<16xf32>
  memref.dealloc %a400 : memref<16xf32>
  %a402 = memref.alloc() : memref<16xf32>
  memref.store %v, %a402[%c0] : memref<16xf32>
  memref.dealloc %a401 : memref<16xf32>
  %a403 = memref.alloc() : memref<16xf32>
  memref.store %v, %a403[%c0] : memref<16xf32>
  memref.dealloc %a402 : memref<16xf32>
  %a404 = memref.alloc() : memref<16xf32>
  memref.store %v, %a404[%c0] : memref<16xf32>
  memref.dealloc %a403 : memref<16xf32>
  %a405 = memref.alloc() : memref<16xf32>
  memref.store %v, %a405[%c0] : memref<16xf32>
  memref.dealloc %a404 : memref<16xf32>
  %a406 = memref.alloc() : memref<16xf32>
  memref.store %v, %a406[%c0] : memref<16xf32>
  memref.dealloc %a405 : memref<16xf32>
  %a407 = memref.alloc() : memref<16xf32>
  memref.store %v, %a407[%c0] : memref<16xf32>
  memref.dealloc %a406 : memref<16xf32>
  %a408 = memref.alloc() : memref<16xf32>
  memref.store %v, %a408[%c0] : memref<16xf32>
  memref.dealloc %a407 : memref<16xf32>
  %a409 = memref.alloc() : memref<16xf32>
  memref.store %v, %a409[%c0] : memref<16xf32>
  memref.dealloc %a408 : memref<16xf32>
  %a410 = memref.alloc() : memref<16xf32>
  memref.store %v, %a410[%c0] : memref<16xf32>
  memref.dealloc %a409 : memref<16xf32>
  %a411 = memref.alloc() : memref<16xf32>
  memref.store %v, %a411[%c0] : memref<16xf32>
  memref.dealloc %a410 : memref<16xf32>
  %a412 = memref.alloc() : memref<16xf32>
  memref.store %v, %a412[%c0] : memref<16xf32>
  memref.dealloc %a411 : memref<16xf32>
  %a413 = memref.alloc() : memref<16xf32>
  memref.store %v, %a413[%c0] : memref<16xf32>
  memref.dealloc %a412 : memref<16xf32>
  %a414 = memref.alloc() : memref<16xf32>
  memref.store %v, %a414[%c0] : memref<16xf32>
  memref.dealloc %a413 : memref<16xf32>
  %a415 = memref.alloc() : memref<16xf32>
  memref.store %v, %a415[%c0] : memref<16xf32>
  memref.dealloc %a414 : memref<16xf32>
  %a416 = memref.alloc() : memref<16xf32>
  memref.store %v, %a416[%c0] : memref<16xf32>
  memref.dealloc %a415 : memref<16xf32>
  %a417 = memref.alloc() : memref<16xf32>
  memref.store %v, %a417[%c0] : memref<16xf32>
  memref.dealloc %a416 : memref<16xf32>
  %a418 = memref.alloc() : memref<16xf32>
  memref.store %v, %a418[%c0] : memref<16xf32>
  memref.dealloc %a417 : memref<16xf32>
  %a419 = memref.alloc() : memref<16xf32>
  memref.store %v, %a419[%c0] : memref<16xf32>
  memref.dealloc %a418 : memref<16xf32>
  %a420 = memref.alloc() : memref<16xf32>
  memref.store %v, %a420[%c0] : memref<16xf32>
  memref.dealloc %a419 : memref<16xf32>
  %a421 = memref.alloc() : memref<16xf32>
  memref.store %v, %a421[%c0] : memref<16xf32>
  memref.dealloc %a420 : memref<16xf32>
  %a422 = memref.alloc() : memref<16xf32>
  memref.store %v, %a422[%c0] : memref<16xf32>
  memref.dealloc %a421 : memref<16xf32>
  %a423 = memref.alloc() : memref<16xf32>
  memref.store %v, %a423[%c0] : memref<16xf32>
  memref.dealloc %a422 : memref<16xf32>
  %a424 = memref.alloc() : memref<16xf32>
  memref.store %v, %a424[%c0] : memref<16xf32>
  memref.dealloc %a423 : memref<16xf32>
  %a425 = memref.alloc() : memref<16xf32>
  memref.store %v, %a425[%c0] : memref<16xf32>
  memref.dealloc %a424 : memref<16xf32>
  %a426 = memref.alloc() : memref<16xf32>
  memref.store %v, %a426[%c0] : memref<16xf32>
  memref.dealloc %a425 : memref<16xf32>
  %a427 = memref.alloc() : memref<16xf32>
  memref.store %v, %a427[%c0] : memref<16xf32>
  memref.dealloc %a426 : memref<16xf32>
  %a428 = memref.alloc() : memref<16xf32>
  memref.store %v, %a428[%c0] : memref<16xf32>
  memref.dealloc %a427 : memref<16xf32>
  %a429 = memref.alloc() : memref<16xf32>
  memref.store %v, %a429[%c0] : memref<16xf32>
  memref.dealloc %a428 : memref<16xf32>
  %a430 = memref.alloc() : memref<16xf32>
  memref.store %v, %a430[%c0] : memref<16xf32>
  memref.dealloc %a429 : memref<16xf32>
  %a431 = memref.alloc() : memref<16xf32>
  memref.store %v, %a431[%c0] : memref<16xf32>
  memref.dealloc %a430 : memref<16xf32>
  %a432 = memref.alloc() : memref<16xf32>
  memref.store %v, %a432[%c0] : memref<16xf32>
  memref.dealloc %a431 : memref<16xf32>
  %a433 = memref.alloc() : memref<16xf32>
  memref.store %v, %a433[%c0] : memref<16xf32>
  memref.dealloc %a432 : memref<16xf32>
  %a434 = memref.alloc() : memref<16xf32>
  memref.store %v, %a434[%c0] : memref<16xf32>
  memref.dealloc %a433 : memref<16xf32>
  %a435 = memref.alloc() : memref<16xf32>
  memref.store %v, %a435[%c0] : memref<16xf32>
  memref.dealloc %a434 : memref<16xf32>
  %a436 = memref.alloc() : memref<16xf32>
  memref.store %v, %a436[%c0] : memref<16xf32>
  memref.dealloc %a435 : memref<16xf32>
  %a437 = memref.alloc() : memref<16xf32>
  memref.store %v, %a437[%c0] : memref<16xf32>
  memref.dealloc %a436 : memref<16xf32>
  %a438 = memref.alloc() : memref<16xf32>
  memref.store %v, %a438[%c0] : memref<16xf32>
  memref.dealloc %a437 : memref<16xf32>
  %a439 = memref.alloc() : memref<16xf32>
  memref.store %v, %a439[%c0] : memref<16xf32>
  memref.dealloc %a438 : memref<16xf32>
  %a440 = memref.alloc() : memref<16xf32>
  memref.store %v, %a440[%c0] : memref<16xf32>
  memref.dealloc %a439 : memref<16xf32>
  %a441 = memref.alloc() : memref<16xf32>
  memref.store %v, %a441[%c0] : memref<16xf32>
  memref.dealloc %a440 : memref<16xf32>
  %a442 = memref.alloc() : memref<16xf32>
  memref.store %v, %a442[%c0] : memref<16xf32>
  memref.dealloc %a441 : memref<16xf32>
  %a443 = memref.alloc() : memref<16xf32>
  memref.store %v, %a443[%c0] : memref<16xf32>
  memref.dealloc %a442 : memref<16xf32>
  %a444 = memref.alloc() : memref<16xf32>
  memref.store %v, %a444[%c0] : memref<16xf32>
  memref.dealloc %a443 : memref<16xf32>
  %a445 = memref.alloc() : memref<16xf32>
  memref.store %v, %a445[%c0] : memref<16xf32>
  memref.dealloc %a444 : memref<16xf32>
  %a446 = memref.alloc() : memref<16xf32>
  memref.store %v, %a446[%c0] : memref<16xf32>
  memref.dealloc %a445 : memref<16xf32>
  %a447 = memref.alloc() : memref<16xf32>
  memref.store %v, %a447[%c0] : memref<16xf32>
  memref.dealloc %a446 : memref<16xf32>
  %a448 = memref.alloc() : memref<16xf32>
  memref.store %v, %a448[%c0] : memref<16xf32>
  memref.dealloc %a447 : memref<16xf32>
  %a449 = memref.alloc() : memref<16xf32>
  memref.store %v, %a449[%c0] : memref<16xf32>
  memref.dealloc %a448 : memref<16xf32>
  %a450 = memref.alloc() : memref<16xf32>
  memref.store %v, %a450[%c0] : memref<16xf32>
  memref.dealloc %a449 : memref<16xf32>
  %a451 = memref.alloc() : memref<16xf32>
  memref.store %v, %a451[%c0] : memref<16xf32>
  memref.dealloc %a450 : memref<16xf32>
  %a452 = memref.alloc() : memref<16xf32>
  memref.store %v, %a452[%c0] : memref<16xf32>
  memref.dealloc %a451 : memref<16xf32>
  %a453 = memref.alloc() : memref<16xf32>
  memref.store %v, %a453[%c0] : memref<16xf32>
  memref.dealloc %a452 : memref<16xf32>
  %a454 = memref.alloc() : memref<16xf32>
  memref.store %v, %a454[%c0] : memref<16xf32>
  memref.dealloc %a453 : memref<16xf32>
  %a455 = memref.alloc() : memref<16xf32>
  memref.store %v, %a455[%c0] : memref<16xf32>
  memref.dealloc %a454 : memref<16xf32>
  %a456 = memref.alloc() : memref<16xf32>
  memref.store %v, %a456[%c0] : memref<16xf32>
  memref.dealloc %a455 : memref<16xf32>
  %a457 = memref.alloc() : memref<16xf32>
  memref.store %v, %a457[%c0] : memref<16xf32>
  memref.dealloc %a456 : memref<16xf32>
  %a458 = memref.alloc() : memref<16xf32>
  memref.store %v, %a458[%c0] : memref<16xf32>
  memref.dealloc %a457 : memref<16xf32>
  %a459 = memref.alloc() : memref<16xf32>
  memref.store %v, %a459[%c0] : memref<16xf32>
  memref.dealloc %a458 : memref<16xf32>
  %a460 = memref.alloc() : memref<16xf32>
  memref.store %v, %a460[%c0] : memref<16xf32>
  memref.dealloc %a459 : memref<16xf32>
  %a461 = memref.alloc() : memref<16xf32>
  memref.store %v, %a461[%c0] : memref<16xf32>
  memref.dealloc %a460 : memref<16xf32>
  %a462 = memref.alloc() : memref<16xf32>
  memref.store %v, %a462[%c0] : memref<16xf32>
  memref.dealloc %a461 : memref<16xf32>
  %a463 = memref.alloc() : memref<16xf32>
  memref.store %v, %a463[%c0] : memref<16xf32>
  memref.dealloc %a462 : memref<16xf32>
  %a464 = memref.alloc() : memref<16xf32>
  memref.store %v, %a464[%c0] : memref<16xf32>
  memref.dealloc %a463 : memref<16xf32>
  %a465 = memref.alloc() : memref<16xf32>
  memref.store %v, %a465[%c0] : memref<16xf32>
  memref.dealloc %a464 : memref<16xf32>
  %a466 = memref.alloc() : memref<16xf32>
  memref.store %v, %a466[%c0] : memref<16xf32>
  memref.dealloc %a465 : memref<16xf32>
  %a467 = memref.alloc() : memref<16xf32>
  memref.store %v, %a467[%c0] : memref<16xf32>
  memref.dealloc %a466 : memref<16xf32>
  %a468 = memref.alloc() : memref<16xf32>
  memref.store %v, %a468[%c0] : memref<16xf32>
  memref.dealloc %a467 : memref<16xf32>
  %a469 = memref.alloc() : memref<16xf32>
  memref.store %v, %a469[%c0] : memref<16xf32>
  memref.dealloc %a468 : memref<16xf32>
  %a470 = memref.alloc() : memref<16xf32>
  memref.store %v, %a470[%c0] : memref<16xf32>
  memref.dealloc %a469 : memref<16xf32>
  %a471 = memref.alloc() : memref<16xf32>
  memref.store %v, %a471[%c0] : memref<16xf32>
  memref.dealloc %a470 : memref<16xf32>
  %a472 = memref.alloc() : memref<16xf32>
  memref.store %v, %a472[%c0] : memref<16xf32>
  memref.dealloc %a471 : memref<16xf32>
  %a473 = memref.alloc() : memref<16xf32>
  memref.store %v, %a473[%c0] : memref<16xf32>
  memref.dealloc %a472 : memref<16xf32>
  %a474 = memref.alloc() : memref<16xf32>
  memref.store %v, %a474[%c0] : memref<16xf32>
  memref.dealloc %a473 : memref<16xf32>
  %a475 = memref.alloc() : memref<16xf32>
  memref.store %v, %a475[%c0] : memref<16xf32>
  memref.dealloc %a474 : memref<16xf32>
  %a476 = memref.alloc() : memref<16xf32>
  memref.store %v, %a476[%c0] : memref<16xf32>
  memref.dealloc %a475 : memref<16xf32>
  %a477 = memref.alloc() : memref<16xf32>
  memref.store %v, %a477[%c0] : memref<16xf32>
  memref.dealloc %a476 : memref<16xf32>
  %a478 = memref.alloc() : memref<16xf32>
  memref.store %v, %a478[%c0] : memref<16xf32>
  memref.dealloc %a477 : memref<16xf32>
  %a479 = memref.alloc() : memref<16xf32>
  memref.store %v, %a479[%c0] : memref<16xf32>
  memref.dealloc %a478 : memref<16xf32>
  %a480 = memref.alloc() : memref<16xf32>
  memref.store %v, %a480[%c0] : memref<16xf32>
  memref.dealloc %a479 : memref<16xf32>
  %a481 = memref.alloc() : memref<16xf32>
  memref.store %v, %a481[%c0] : memref<16xf32>
  memref.dealloc %a480 : memref<16xf32>
  %a482 = memref.alloc() : memref<16xf32>
  memref.store %v, %a482[%c0] : memref<16xf32>
  memref.dealloc %a481 : memref<16xf32>
  %a483 = memref.alloc() : memref<16xf32>
  memref.store %v, %a483[%c0] : memref<16xf32>
  memref.dealloc %a482 : memref<16xf32>
  %a484 = memref.alloc() : memref<16xf32>
  memref.store %v, %a484[%c0] : memref<16xf32>
  memref.dealloc %a483 : memref<16xf32>
  %a485 = memref.alloc() : memref<16xf32>
  memref.store %v, %a485[%c0] : memref<16xf32>
  memref.dealloc %a484 : memref<16xf32>
  %a486 = memref.alloc() : memref<16xf32>
  memref.store %v, %a486[%c0] : memref<16xf32>
  memref.dealloc %a485 : memref<16xf32>
  %a487 = memref.alloc() : memref<16xf32>
  memref.store %v, %a487[%c0] : memref<16xf32>
  memref.dealloc %a486 : memref<16xf32>
  %a488 = memref.alloc() : memref<16xf32>
  memref.store %v, %a488[%c0] : memref<16xf32>
  memref.dealloc %a487 : memref<16xf32>
  %a489 = memref.alloc() : memref<16xf32>
  memref.store %v, %a489[%c0] : memref<16xf32>
  memref.dealloc %a488 : memref<16xf32>
  %a490 = memref.alloc() : memref<16xf32>
  memref.store %v, %a490[%c0] : memref<16xf32>
  memref.dealloc %a489 : memref<16xf32>
  %a491 = memref.alloc() : memref<16xf32>
  memref.store %v, %a491[%c0] : memref<16xf32>
  memref.dealloc %a490 : memref<16xf32>
  %a492 = memref.alloc() : memref<16xf32>
  memref.store %v, %a492[%c0] : memref<16xf32>
  memref.dealloc %a491 : memref<16xf32>
  %a493 = memref.alloc() : memref<16xf32>
  memref.store %v, %a493[%c0] : memref<16xf32>
  memref.dealloc %a492 : memref<16xf32>
  %a494 = memref.alloc() : memref<16xf32>
  memref.store %v, %a494[%c0] : memref<16xf32>
  memref.dealloc %a493 : memref<16xf32>
  %a495 = memref.alloc() : memref<16xf32>
  memref.store %v, %a495[%c0] : memref<16xf32>
  memref.dealloc %a494 : memref<16xf32>
  %a496 = memref.alloc() : memref<16xf32>
  memref.store %v, %a496[%c0] : memref<16xf32>
  memref.dealloc %a495 : memref<16xf32>
  %a497 = memref.alloc() : memref<16xf32>
  memref.store %v, %a497[%c0] : memref<16xf32>
  memref.dealloc %a496 : memref<16xf32>
  %a498 = memref.alloc() : memref<16xf32>
  memref.store %v, %a498[%c0] : memref<16xf32>
  memref.dealloc %a497 : memref<16xf32>
  %a499 = memref.alloc() : memref<16xf32>
  memref.store %v, %a499[%c0] : memref<16xf32>
  memref.dealloc %a498 : memref<16xf32>
  %a500 = memref.alloc() : memref<16xf32>
  memref.store %v, %a500[%c0] : memref<16xf32>
  memref.dealloc %a499 : memref<16xf32>
  memref.dealloc %a500 : memref<16xf32>
  return
}
