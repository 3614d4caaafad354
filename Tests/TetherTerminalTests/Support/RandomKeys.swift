import TetherTerminal
import TetherTestSupport

extension RandomText {
    /// A random key, typed text and pastes included.
    static func key(_ random: inout SeededRandom) -> Key {
        switch random.below(20) {
        case 0: return .backspace
        case 1: return .delete
        case 2: return .left
        case 3: return .right
        case 4: return .home
        case 5: return .end
        case 6: return .paste(text(&random, maximum: 10))
        case 7: return .control("u")
        case 8: return .control("k")
        case 9: return .alt("b")
        case 10: return .alt("f")
        case 11: return .escape
        case 12: return .enter
        default:
            let piece = self.piece(&random)
            return .character(piece.first ?? "x")
        }
    }
}
