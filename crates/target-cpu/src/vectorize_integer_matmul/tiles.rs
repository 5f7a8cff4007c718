//! The AMX form of `strata-vectorize-integer-matmul`'s kernels (option `amx`): the sums as
//! tile products (`amx.tile_muli`, lowered to `tdpbusd`/`tdpbsud`), for hosts whose CPU has AMX
//! tiles with int8 products and whose kernel grants the tiles' state
//! (`strata_machine::host_has_amx_int8`).
//!
//! A block is 32 rows x 32 columns: four 16 x 16 tiles of i32 sums, fed per step of depth by
//! two tiles of rows (16 rows of `A`, read in place: the tile load takes the rows' stride) and
//! two of the packed operand (16 groups of 4 depths x 16 columns: what `[N / 16, K / 4, 16, 4]`
//! holds contiguously), all eight tile registers. One tile product at 64 bytes of depth is
//! 16 x 16 x 64 multiply-adds, where `vpdpbusd` does 16 x 4. LLVM configures each tile register
//! for one shape per function (`ldtilecfg`), so every tile of a kernel has one: the depth goes
//! in equal steps ([`depth_chunk`]) and the rows left over in a tile moved back over rows
//! already done ([`row_tiles`]), which it computes again to the same sums; the last 16 columns
//! of an odd count take one column of tiles.
//!
//! Sums leave the tiles through their destination: each tile is stored where its sums go (the
//! f32 result holds them as bits until the scaling), then its rows take the register kernel's
//! epilogue in place: the start (offsets, one a column or a row) and the scaling. Without a
//! start, the tiles start from the sums' buffer (loaded as tiles) and are stored back, nothing
//! else. The products are exact, so results are bit-identical to the VNNI kernel's.
//! [`takes`] says which products go on tiles.

use super::{Absorbed, Form, Product, DEPTH, LANES};
use crate::text_kernels::{blocks, blocks_parallel_columns, blocks_parallel_rows};

/// Rows and columns of a block (two tiles each way), and the most bytes of depth a tile holds.
const BLOCK: i64 = 32;
const TILE: i64 = 16;
const CHUNK: i64 = 64;

/// The least multiply-adds a tile kernel splits across threads: 8 x the VNNI kernel's
/// (`conv_lanes::PARALLEL_MACS`), tiles doing about 8 x the work a cycle, so that a thread's
/// share still outweighs the fork, the join and each thread's tile configuration. Split at the
/// VNNI kernel's floor, the dynamically quantized BERT-tiny's 128 x 128 x 128 products took
/// 14.5 us on two threads against 7.3 on one.
const TILE_PARALLEL_MACS: i64 = 8 * crate::conv_lanes::PARALLEL_MACS;

/// Whether the product goes on tiles, given what its kernel absorbs: at least 32 rows and 64
/// bytes of depth (qdq_mobilenet's 1x1 convolutions ran 1.1-2x slower on tiles with 16 to 24
/// input channels, a tile product of 16 bytes of depth doing a quarter of a 64-byte one's work
/// for the same loads and stores, and with 24 output channels, whose second tile computes 8
/// of its rows again); whole column tiles (a last one partly past N would store over the next
/// row); and, for sums accumulated into their buffer, no tile moved back over done rows (it
/// would add their products twice).
pub(super) fn takes(product: &Product, absorbed: Absorbed) -> bool {
    let Product { m, k, n, .. } = *product;
    let overlaps = m % TILE != 0;
    k >= CHUNK && m >= BLOCK && n % LANES == 0 && !(absorbed == Absorbed::Nothing && overlaps)
}

/// The tiles of a block of `rows` rows of a product of at least 16: the row offset of each,
/// 16 rows from there, the last moved back to end at the block's end (over rows of the tile or
/// block before), so that every tile of the kernel has one shape.
fn row_tiles(rows: i64) -> Vec<i64> {
    (0..rows).step_by(TILE as usize).map(|first| first.min(rows - TILE)).collect()
}

/// The rows of each of `tiles` (offsets, [`row_tiles`]) whose epilogue the tile before in the
/// block did: its sums stored again before either's epilogue ran, they are done once.
fn done_rows(tiles: &[i64]) -> Vec<i64> {
    (0..tiles.len()).map(|i| if i == 0 { 0 } else { (tiles[i - 1] + TILE - tiles[i]).max(0) }).collect()
}

/// The bytes of depth each step takes: `k` in equal steps of at most 64 bytes, a multiple of 4
/// (the packing's groups), so every tile of a row's bytes has one shape.
fn depth_chunk(k: i64) -> i64 {
    let groups = k / DEPTH;
    let mut steps = (k + CHUNK - 1) / CHUNK;
    while groups % steps != 0 {
        steps += 1;
    }
    k / steps
}

impl Product {
    /// [`Product::function`]'s kernel on AMX tiles, for a product [`takes`] takes.
    pub(super) fn tile_function(
        &self,
        types: &[String],
        threads: i64,
        absorbed: Absorbed,
        epilogue: Option<&super::epilogue::Epilogue>,
    ) -> String {
        let Product { m, k, n, form, bits } = *self;
        let (at, packed_t) = (&types[0], &types[1]);
        let k4 = k / DEPTH;
        let pixels = form == Form::Pixels;
        let b_elem = if pixels { "ui8" } else { "i8" };
        let flat_b = format!("memref<{}x{k4}x{}x{b_elem}>", n / LANES, LANES * DEPTH);
        let args = absorbed.arguments(types) + &epilogue.map(super::epilogue::Epilogue::arguments).unwrap_or_default();
        let (start, scaled) = (absorbed != Absorbed::Nothing, absorbed == Absorbed::StartAndScaling);
        // Where the sums go: the f32 result (as bits until scaled) or the sums' buffer.
        let (dest, dest_t) = if scaled { ("%out", &types[4]) } else { ("%c", types.last().expect("operands")) };
        // The destination holds f32: the sums as their bits.
        let dest_f32 = scaled || bits;
        let chunk = depth_chunk(k);
        let mut constants = vec![0, 1, DEPTH, TILE, BLOCK, chunk, k, m, n, m / BLOCK * BLOCK, n / BLOCK * BLOCK];
        for rows in [BLOCK, m % BLOCK] {
            let tiles = row_tiles(rows);
            constants.extend(done_rows(&tiles));
            constants.extend(tiles.into_iter().map(i64::abs));
        }
        let mut s = super::kernel_head(&args, constants, packed_t, &flat_b);
        let vt = format!("vector<{LANES}xi32>");
        let ft = format!("vector<{LANES}xf32>");
        if let Some(e) = epilogue {
            s += &e.head((m, n), &ft);
        }
        let c_type = format!("!amx.tile<{TILE}x{TILE}xi32>");
        let a_type = format!("!amx.tile<{TILE}x{chunk}xi8>");
        let b_type = format!("!amx.tile<{}x{}xi8>", chunk / DEPTH, LANES * DEPTH);
        let (lhs_zext, rhs_zext) = if pixels { ("", " zext") } else { (" zext", "") };
        let mut id = 0usize;
        let mut block = |s: &mut String, rows: i64, row: &str, col: &str, partial: bool, indent: &str| {
            id += 1;
            let b = id;
            let tiles = row_tiles(rows);
            let col_tiles = if partial { (n % BLOCK) / TILE } else { BLOCK / TILE };
            for (i, &offset) in tiles.iter().enumerate() {
                let op = if offset < 0 { "subi" } else { "addi" };
                *s += &format!("{indent}%row{b}_{i} = arith.{op} {row}, %c{} : index\n", offset.abs());
            }
            for j in 0..col_tiles {
                *s += &format!(
                    "{indent}%col{b}_{j} = arith.addi {col}, %c{} : index\n\
                     {indent}%nb{b}_{j} = arith.divui %col{b}_{j}, %c{TILE} : index\n",
                    j * TILE
                );
            }
            let pairs: Vec<(usize, i64)> = (0..tiles.len()).flat_map(|i| (0..col_tiles).map(move |j| (i, j))).collect();
            // The tiles' start: zeros, or (no start absorbed) the sums' buffer.
            let mut inits = Vec::new();
            for &(i, j) in &pairs {
                if start {
                    *s += &format!("{indent}%z{b}_{i}_{j} = amx.tile_zero : {c_type}\n");
                } else {
                    *s += &format!(
                        "{indent}%z{b}_{i}_{j} = amx.tile_load {dest}[%row{b}_{i}, %col{b}_{j}] : {dest_t} into {c_type}\n"
                    );
                }
                inits.push(format!("%acc{b}_{i}_{j} = %z{b}_{i}_{j}"));
            }
            let count = pairs.len();
            let tile_types = vec![c_type.as_str(); count].join(", ");
            *s += &format!(
                "{indent}%sum{b}:{count} = scf.for %kc{b} = %c0 to %c{k} step %c{chunk} iter_args({}) -> ({tile_types}) {{\n",
                inits.join(", ")
            );
            let inner = format!("{indent}  ");
            *s += &format!("{inner}%kq{b} = arith.divui %kc{b}, %c{DEPTH} : index\n");
            for i in 0..tiles.len() {
                *s += &format!("{inner}%a{b}_{i} = amx.tile_load %a[%row{b}_{i}, %kc{b}] : {at} into {a_type}\n");
            }
            for j in 0..col_tiles {
                *s += &format!(
                    "{inner}%b{b}_{j} = amx.tile_load %bf[%nb{b}_{j}, %kq{b}, %c0] : {flat_b} into {b_type}\n"
                );
            }
            let mut next = Vec::new();
            for &(i, j) in &pairs {
                *s += &format!(
                    "{inner}%m{b}_{i}_{j} = amx.tile_muli %a{b}_{i}{lhs_zext}, %b{b}_{j}{rhs_zext}, %acc{b}_{i}_{j} : {a_type}, {b_type}, {c_type}\n"
                );
                next.push(format!("%m{b}_{i}_{j}"));
            }
            *s += &format!("{inner}scf.yield {} : {tile_types}\n{indent}}}\n", next.join(", "));
            for (x, &(i, j)) in pairs.iter().enumerate() {
                *s += &format!(
                    "{indent}amx.tile_store {dest}[%row{b}_{i}, %col{b}_{j}], %sum{b}#{x} : {dest_t}, {c_type}\n"
                );
            }
            if !start {
                return;
            }
            // The epilogue over the stored sums, a row of a tile at a time: a tile moved back
            // over the block before stored their sums again, so it redoes their epilogue too;
            // over rows of its own block, it leaves them to the tile before.
            let done = done_rows(&tiles);
            let per_column = |s: &mut String, name: &str, memory: &str, memory_t: &str, ty: &str, j: i64| {
                *s += &format!("{indent}%{name}{b}_{j} = vector.load {memory}[%col{b}_{j}] : {memory_t}, {ty}\n");
            };
            for j in 0..col_tiles {
                if !pixels {
                    per_column(s, "off", "%offsets", &types[2], &vt, j);
                    if scaled {
                        per_column(s, "scale", "%scales", &types[3], &ft, j);
                    }
                }
            }
            for &(i, j) in &pairs {
                let e = format!("{b}_{i}_{j}");
                let body = format!("{indent}  ");
                *s += &format!(
                    "{indent}scf.for %r{e} = %c{} to %c{TILE} step %c1 {{\n\
                     {body}%y{e} = arith.addi %row{b}_{i}, %r{e} : index\n",
                    done[i]
                );
                if dest_f32 {
                    *s += &format!(
                        "{body}%h{e} = vector.load {dest}[%y{e}, %col{b}_{j}] : {dest_t}, {ft}\n\
                         {body}%s{e} = arith.bitcast %h{e} : {ft} to {vt}\n"
                    );
                } else {
                    *s += &format!("{body}%s{e} = vector.load {dest}[%y{e}, %col{b}_{j}] : {dest_t}, {vt}\n");
                }
                // The pixel form's offset or scale: the row's, in every lane.
                let row_value = |s: &mut String, name: &str, memory: &str, memory_t: &str, elem: &str, ty: &str| {
                    *s += &format!(
                        "{body}%{name}s{e} = memref.load {memory}[%y{e}] : {memory_t}\n\
                         {body}%{name}v{e} = vector.broadcast %{name}s{e} : {elem} to {ty}\n"
                    );
                    format!("%{name}v{e}")
                };
                let offset =
                    if pixels { row_value(s, "o", "%offsets", &types[2], "i32", &vt) } else { format!("%off{b}_{j}") };
                *s += &format!("{body}%t{e} = arith.addi %s{e}, {offset} : {vt}\n");
                let stored = if scaled {
                    let scale = if pixels {
                        row_value(s, "s", "%scales", &types[3], "f32", &ft)
                    } else {
                        format!("%scale{b}_{j}")
                    };
                    *s += &format!(
                        "{body}%f{e} = arith.sitofp %t{e} : {vt} to {ft}\n\
                         {body}%o{e} = arith.mulf %f{e}, {scale} : {ft}\n"
                    );
                    let mut value = format!("%o{e}");
                    if let Some(epilogue) = epilogue {
                        // The kernel after the scaling (`epilogue.rs`), on the row's register.
                        let (row, col) = (format!("%y{e}"), format!("%col{b}_{j}"));
                        *s += &epilogue.row(&e, &row, &ft, &body);
                        value = epilogue.apply(s, (&e, &e), (&row, &col), (&value, &ft, None), (m, n), &body);
                    }
                    (value, &ft)
                } else if bits {
                    *s += &format!("{body}%o{e} = arith.bitcast %t{e} : {vt} to {ft}\n");
                    (format!("%o{e}"), &ft)
                } else {
                    (format!("%t{e}"), &vt)
                };
                *s += &format!(
                    "{body}vector.store {}, {dest}[%y{e}, %col{b}_{j}] : {dest_t}, {}\n{indent}}}\n",
                    stored.0, stored.1
                );
            }
        };
        let parallel = m * k * n >= TILE_PARALLEL_MACS;
        if threads > 1 && parallel && n / BLOCK >= 2 {
            blocks_parallel_columns(&mut s, "    ", ("m", m, BLOCK), ("n", n, BLOCK), &mut block);
        } else if threads > 1 && parallel && m / BLOCK >= 2 {
            blocks_parallel_rows(&mut s, "    ", ("m", m, BLOCK), ("n", n, BLOCK), &mut block);
        } else {
            blocks(&mut s, "    ", ("m", m, BLOCK), ("n", n, BLOCK), &mut block);
        }
        s += "    return\n  }\n}\n";
        s
    }
}

#[cfg(test)]
mod tests {
    use super::{depth_chunk, done_rows, row_tiles};

    #[test]
    fn row_tiles_cover_each_row_within_the_product() {
        for m in [16, 24, 32, 40, 64, 400] {
            let mut covered = vec![false; m as usize];
            let main = m / 32 * 32;
            let mut blocks: Vec<(i64, i64)> = (0..main).step_by(32).map(|row| (row, 32)).collect();
            if m > main {
                blocks.push((main, m - main));
            }
            let mut epilogues = vec![0; m as usize];
            for (row, rows) in blocks {
                let tiles = row_tiles(rows);
                for (&offset, done) in tiles.iter().zip(done_rows(&tiles)) {
                    for r in row + offset + done..row + offset + 16 {
                        epilogues[r as usize] += 1;
                    }
                    assert!(row + offset >= 0 && row + offset + 16 <= m, "m = {m}: a tile past the rows");
                    for r in row + offset..row + offset + 16 {
                        covered[r as usize] = true;
                    }
                }
            }
            assert!(covered.iter().all(|&c| c), "m = {m}: {covered:?}");
            // Rows of a block before a moved-back tile get a second epilogue (over sums stored
            // again); within a block, one each.
            let again = if m % 16 != 0 && m % 32 < 16 { 16 - m % 32 } else { 0 };
            let twice = epilogues.iter().filter(|&&e| e == 2).count() as i64;
            assert!(epilogues.iter().all(|&e| e == 1 || e == 2), "m = {m}: {epilogues:?}");
            assert_eq!(twice, again, "m = {m}: {epilogues:?}");
        }
    }

    #[test]
    fn depth_steps_are_equal_groups_of_four() {
        assert_eq!(depth_chunk(384), 64);
        assert_eq!(depth_chunk(96), 48);
        assert_eq!(depth_chunk(64), 64);
        assert_eq!(depth_chunk(72), 36);
        // 17 groups: no equal steps of at most 16 groups but single ones.
        assert_eq!(depth_chunk(68), 4);
    }
}
